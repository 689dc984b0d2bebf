//! The game viewer: one self-contained HTML page per game (`fairyzero show-game --html`), which
//! draws a board of any size as SVG and steps through the game.
//!
//! The page is `assets/viewer.html`, with the board's drawing (`assets/board.js` and
//! `board.css`, which the play page of `fairyzero play` shares: [`with_board`]) inlined, and
//! the game as JSON in a `<script type="application/json">`
//! element: no network, no external script or font, so a page can be mailed or committed and
//! still opens in ten years. Every board the page shows is computed here by the rules crate
//! (the page itself knows no rules): the position before the first move and after each move,
//! and per move which squares it emptied, filled and captured (from the two boards, so that
//! multi-captures, igui, swaps and conversions are shown as what they did). The page's SVG
//! carries `data-square`/`data-token`/`data-side` on every piece, which the tests read back
//! from a headless browser's DOM.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use fairyzero_rules::{Color, MoveList, Piece, Position, Variant};
use serde_json::{json, Value};

/// The page, with `/*GAME*/null` where the game's JSON goes.
const TEMPLATE: &str = include_str!("../assets/viewer.html");
const PLACEHOLDER: &str = "/*GAME*/null";

/// The board's drawing, shared by the pages that show a board (viewer.html, play.html).
const BOARD_JS: &str = include_str!("../assets/board.js");
const BOARD_CSS: &str = include_str!("../assets/board.css");

/// `template` with the shared board script and style inlined where it says `/*BOARD_JS*/`
/// (inside a `<script>` element) and `/*BOARD_CSS*/` (inside `<style>`).
pub(crate) fn with_board(template: &str) -> String {
    debug_assert!(template.contains("/*BOARD_JS*/") && template.contains("/*BOARD_CSS*/"));
    // Inlined in a <script> element, the script must not contain `</` (it would end it).
    debug_assert!(!BOARD_JS.contains("</") && !BOARD_CSS.contains("</"));
    template.replacen("/*BOARD_CSS*/", BOARD_CSS, 1).replacen("/*BOARD_JS*/", BOARD_JS, 1)
}

/// What the search said about one move, where the record has it.
#[derive(Clone, Debug, Default)]
pub struct SearchNotes {
    /// The search's value for the side to move, in [-1, 1].
    pub value: f32,
    pub simulations: u32,
    /// The policy target, `(move, weight)`, any order and scale.
    pub targets: Vec<(String, f32)>,
}

/// One move of a game to show: its text in the project's notation and, for self-play
/// records, the search's notes.
#[derive(Clone, Debug)]
pub struct PlyInput {
    pub mv: String,
    pub notes: Option<SearchNotes>,
}

/// A game to show: where it starts, its moves, and the lines of its header.
pub struct GameInput {
    pub start: Position,
    pub moves: Vec<PlyInput>,
    /// Title of the page (e.g. `scirocco: game 3 of FILE`).
    pub title: String,
    /// `(label, text)` lines shown above the board: players, result, reason, ...
    pub header: Vec<(String, String)>,
}

/// How many policy targets the page lists per ply.
const TOP_TARGETS: usize = 8;

/// The board as `[[square, piece type, side], ...]` (side 0 = the first player).
pub(crate) fn board_json(pos: &Position) -> Value {
    let cells: Vec<Value> = pos
        .board()
        .iter()
        .enumerate()
        .filter_map(|(sq, p)| p.map(|p| json!([sq, p.kind().index(), p.color().index()])))
        .collect();
    Value::Array(cells)
}

/// Squares a move changed, by what happened there, from the boards before and after it.
pub(crate) fn changes(before: &[Option<Piece>], after: &[Option<Piece>], mover: Color) -> Value {
    let (mut from, mut to, mut captured, mut changed) = (vec![], vec![], vec![], vec![]);
    for (sq, (b, a)) in before.iter().zip(after).enumerate() {
        if b == a {
            continue;
        }
        let ours = |p: &Option<Piece>| p.is_some_and(|p| p.color() == mover);
        let theirs = |p: &Option<Piece>| p.is_some_and(|p| p.color() != mover);
        if theirs(b) && !theirs(a) {
            captured.push(sq);
            if ours(a) {
                to.push(sq);
            }
        } else if ours(b) && a.is_none() {
            from.push(sq);
        } else if ours(a) {
            to.push(sq);
        } else {
            changed.push(sq);
        }
    }
    json!({ "from": from, "to": to, "captured": captured, "changed": changed })
}

/// The game's JSON for the page: the variant's board and pieces, every board of the game, and
/// per move its text, side, changes and search notes.
pub fn game_json(game: &GameInput) -> Result<Value> {
    let variant: &Arc<Variant> = game.start.variant();
    let mut data = board_geometry(variant)?;
    let mut pos = game.start.clone();
    let mut boards = vec![board_json(&pos)];
    let mut plies = Vec::with_capacity(game.moves.len());
    let mut legal = MoveList::new();
    for (i, ply) in game.moves.iter().enumerate() {
        pos.legal_moves(&mut legal);
        let Some(&m) = legal.iter().find(|m| pos.move_to_string(m) == ply.mv) else {
            bail!("move {} ({:?}) is not legal in {}", i + 1, ply.mv, pos.to_fen());
        };
        let mover = pos.side_to_move();
        let setup = pos.in_setup();
        let before = pos.board().to_vec();
        pos.make(m);
        let mut entry = json!({
            "move": ply.mv,
            "side": mover.name(),
            "setup": setup,
            "changes": changes(&before, pos.board(), mover),
            "fen": pos.to_fen(),
        });
        if let Some(notes) = &ply.notes {
            let total: f32 = notes.targets.iter().map(|(_, w)| w.max(0.0)).sum();
            let mut top: Vec<&(String, f32)> = notes.targets.iter().collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1));
            let top: Vec<Value> = top
                .iter()
                .take(TOP_TARGETS)
                .map(|(mv, w)| json!([mv, if total > 0.0 { w.max(0.0) / total } else { 0.0 }]))
                .collect();
            // The chart shows every value from the first player's side.
            let first_player_value = if mover.index() == 0 { notes.value } else { -notes.value };
            entry["value"] = json!(first_player_value);
            entry["simulations"] = json!(notes.simulations);
            entry["targets"] = Value::Array(top);
        }
        plies.push(entry);
        boards.push(board_json(&pos));
    }
    data["title"] = json!(game.title);
    data["header"] = game.header.iter().map(|(k, v)| json!([k, v])).collect();
    data["start_fen"] = json!(game.start.to_fen());
    data["boards"] = Value::Array(boards);
    data["plies"] = Value::Array(plies);
    Ok(data)
}

/// What board.js needs to draw `variant`'s boards: its name, size, file letters, the two
/// sides' names and the pieces (`token`, full `name`) by type index.
pub(crate) fn board_geometry(variant: &Variant) -> Result<Value> {
    let dims = variant.dims;
    if !(1..=26).contains(&dims.width) || !(1..=99).contains(&dims.height) {
        bail!("the viewer draws boards up to 26 files; {} is {}x{}", variant.name, dims.width, dims.height);
    }
    let pieces: Vec<Value> = variant.pieces.iter().map(|p| json!({ "token": p.token, "name": p.name })).collect();
    let files: Vec<String> = (0..dims.width).map(|f| ((b'a' + f) as char).to_string()).collect();
    Ok(json!({
        "variant": variant.name,
        "width": dims.width,
        "height": dims.height,
        "files": files,
        "sides": [Color::Blue.name(), Color::Tan.name()],
        "pieces": pieces,
    }))
}

/// The whole page for `game`.
pub fn game_page(game: &GameInput) -> Result<String> {
    let data = game_json(game)?;
    // Inside <script>, only `</` can end the element early; JSON allows `<\/` for it.
    let text = serde_json::to_string(&data).context("writing the game as JSON")?.replace("</", "<\\/");
    debug_assert!(TEMPLATE.contains(PLACEHOLDER));
    Ok(with_board(TEMPLATE).replacen(PLACEHOLDER, &text, 1).replace("{{TITLE}}", &html_escape(&game.title)))
}

/// `s` with the characters HTML gives a meaning escaped (text and attribute values).
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(variant: &str, moves: &[&str]) -> GameInput {
        let v = Variant::load(variant).unwrap();
        GameInput {
            start: Position::start(v),
            moves: moves.iter().map(|m| PlyInput { mv: m.to_string(), notes: None }).collect(),
            title: "t".into(),
            header: vec![],
        }
    }

    #[test]
    fn boards_and_changes_follow_the_moves() {
        let g = game_json(&input("chess", &["e2e4", "d7d5", "e4d5"])).unwrap();
        assert_eq!(g["boards"].as_array().unwrap().len(), 4);
        assert_eq!(g["boards"][0].as_array().unwrap().len(), 32);
        assert_eq!(g["boards"][3].as_array().unwrap().len(), 31, "one pawn captured");
        let v = Variant::load("chess").unwrap();
        let sq = |name: &str| v.dims.parse_square(name).unwrap().index();
        let c = &g["plies"][2]["changes"];
        assert_eq!(c["from"], json!([sq("e4")]));
        assert_eq!(c["captured"], json!([sq("d5")]));
        assert_eq!(c["to"], json!([sq("d5")]), "the captured square is also the destination");
        assert_eq!(g["plies"][2]["side"], "Blue");
    }

    #[test]
    fn an_illegal_move_is_named() {
        let e = game_json(&input("chess", &["e2e4", "e2e4"])).unwrap_err().to_string();
        assert!(e.contains("move 2") && e.contains("e2e4"), "{e}");
    }

    #[test]
    fn the_json_cannot_close_the_script_element() {
        let mut g = input("chess", &[]);
        g.title = "</script><script>alert(1)</script>".into();
        let page = game_page(&g).unwrap();
        assert_eq!(page.matches("</script>").count(), TEMPLATE.matches("</script>").count());
        assert!(page.contains("&lt;/script&gt;"), "the title is escaped");
        assert!(page.contains("function makeBoard") && !page.contains("/*BOARD_"), "the board script is inlined");
    }
}
