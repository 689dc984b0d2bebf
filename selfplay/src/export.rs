//! Game records as text: the listing of `fairyzero show-game` and a PGN-like export.
//!
//! The PGN export names the variant and the position play starts from: for a game with a
//! setup phase, `FEN` is the array the players chose and the `SetupMoves` tag lists their
//! choices (setup moves are not chess moves, so they stay out of the movetext). `PlyCount`,
//! like the listing's `N plies`, counts every ply of the game, setup plies included.

use std::sync::Arc;

use fairyzero_rules::{Color, Variant};

use crate::record::{GameRecord, ReplayError, SetupKind};

struct Replayed {
    /// Setup moves, then the position where play starts and the moves from there.
    setup: Vec<String>,
    play_start_fen: String,
    first_mover: Color,
    first_fullmove: u32,
    play: Vec<String>,
}

fn replay(game: &GameRecord, variant: &Arc<Variant>) -> Result<Replayed, ReplayError> {
    let mut out = Replayed {
        setup: Vec::new(),
        play_start_fen: String::new(),
        first_mover: Color::Blue,
        first_fullmove: 1,
        play: Vec::new(),
    };
    let mut started = false;
    let end = game.replay(variant, |step| {
        if step.position.in_setup() {
            out.setup.push(step.record.mv.clone());
            return;
        }
        if !started {
            started = true;
            out.play_start_fen = step.position.to_fen();
            out.first_mover = step.position.side_to_move();
            out.first_fullmove = step.position.fullmove_number();
        }
        out.play.push(step.record.mv.clone());
    })?;
    if !started {
        out.play_start_fen = end.to_fen();
        out.first_mover = end.side_to_move();
        out.first_fullmove = end.fullmove_number();
    }
    Ok(out)
}

/// Numbered movetext: `1. e2e4 e7e5 2. g1f3` (`1... e7e5` when Tan moves first).
fn movetext(moves: &[String], first_mover: Color, first_fullmove: u32) -> String {
    let mut parts = Vec::new();
    let mut number = first_fullmove;
    let mut side = first_mover;
    for (i, m) in moves.iter().enumerate() {
        match side {
            Color::Blue => parts.push(format!("{number}. {m}")),
            Color::Tan if i == 0 => parts.push(format!("{number}... {m}")),
            Color::Tan => parts.push(m.clone()),
        }
        if side == Color::Tan {
            number += 1;
        }
        side = side.other();
    }
    parts.join(" ")
}

/// Wraps text at spaces to lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> String {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// A PGN-like export of one game: the seven-tag roster (White = Blue, who moves first), the
/// variant, its hash and the start position, then the movetext.
pub fn to_pgn(game: &GameRecord, variant: &Arc<Variant>) -> Result<String, ReplayError> {
    let r = replay(game, variant)?;
    let result = game.result.score_text();
    let mut s = String::new();
    let mut tag =
        |k: &str, v: &str| s.push_str(&format!("[{k} \"{}\"]\n", v.replace('\\', "\\\\").replace('"', "\\\"")));
    tag("Event", "fairyzero self-play");
    tag("Site", "?");
    tag("Date", "????.??.??");
    tag("Round", "?");
    tag("White", &game.net);
    tag("Black", &game.net);
    tag("Result", result);
    tag("Variant", &game.variant);
    tag("VariantHash", &game.variant_hash);
    tag("SetUp", "1");
    tag("FEN", &r.play_start_fen);
    if game.setup == SetupKind::Phase {
        tag("SetupMoves", &r.setup.join(" "));
    }
    tag("Termination", game.result.reason.as_str());
    // Every ply, setup plies included, as the listing of `show-game` counts them: the record's
    // length, whatever part of it the movetext shows.
    tag("PlyCount", &game.moves.len().to_string());
    tag("Seed", &game.seed.to_string());
    tag("Program", &game.program_version);
    let body = format!("{} {result}", movetext(&r.play, r.first_mover, r.first_fullmove)).trim().to_string();
    s.push('\n');
    s.push_str(&wrap(&body, 79));
    s.push_str("\n\n");
    Ok(s)
}

/// The listing of `fairyzero show-game`: a header, the setup choices, the numbered moves and
/// the result; with `details`, one line per move with the search's value, simulations,
/// evaluations and strongest policy targets.
pub fn describe(game: &GameRecord, variant: &Arc<Variant>, details: bool) -> Result<String, ReplayError> {
    let r = replay(game, variant)?;
    let mut s = String::new();
    s.push_str(&format!("variant: {} (hash {})\n", game.variant, game.variant_hash));
    s.push_str(&format!(
        "net: {}  seed: {}  search: {} {} simulations  program: {}\n",
        game.net, game.seed, game.search.kind, game.search.simulations, game.program_version
    ));
    match game.setup {
        SetupKind::Phase => s.push_str(&format!("setup: {}\n", r.setup.join(" "))),
        SetupKind::Default => s.push_str("setup: the variant's start position\n"),
        SetupKind::Fen => s.push_str("setup: given position\n"),
    }
    s.push_str(&format!("start: {}\n", r.play_start_fen));
    s.push_str(&format!("{}\n", wrap(&movetext(&r.play, r.first_mover, r.first_fullmove), 99)));
    let winner = match game.result.winner_color() {
        Some(c) => format!("{} wins", c.name()),
        None => "draw".into(),
    };
    s.push_str(&format!(
        "result: {} {winner} ({}), {} plies\n",
        game.result.score_text(),
        game.result.reason,
        game.moves.len()
    ));
    if details {
        s.push_str("\nply  move            value   sims  evals  targets\n");
        for (i, m) in game.moves.iter().enumerate() {
            let targets = match &m.policy {
                None => "-".to_string(),
                Some(p) => {
                    let total: f32 = p.iter().map(|(_, w)| w).sum();
                    let mut top: Vec<&(String, f32)> = p.iter().collect();
                    top.sort_by(|a, b| b.1.total_cmp(&a.1));
                    top.iter()
                        .take(3)
                        .map(|(mv, w)| format!("{mv} {:.2}", w / total.max(1e-9)))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            s.push_str(&format!(
                "{:>3}  {:<14} {:>+6.3}  {:>5}  {:>5}  {targets}\n",
                i + 1,
                m.mv,
                m.value,
                m.simulations,
                m.evaluations
            ));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetext_numbers_moves() {
        let m = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(movetext(&m(&["a", "b", "c"]), Color::Blue, 1), "1. a b 2. c");
        assert_eq!(movetext(&m(&["a", "b", "c"]), Color::Tan, 7), "7... a 8. b c");
        assert_eq!(wrap("aa bb cc", 5), "aa bb\ncc");
    }
}
