//! Chushin Shogi's worked examples (chushin-shogi.md §11), read from
//! `rules/tests/data/chushin/examples.txt`, and the dossier's move notation (§9.3).
//!
//! A dossier move and a generated [`Move`] are compared through one key, [`MoveKey`]: the
//! dossier's identifying data `(from, to, V, promote)` of §9.2. The same key is read from the
//! dossier's text (`h9xh10-i11`, `b14xb15-a14+`) and from a generated move (its `from`, `to`,
//! `captures()` and promotion), so a test compares what the moves do, not how two notations
//! print them.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use fairyzero_rules::{Color, Dims, Move, MoveKind, Position, Square, Variant};

/// The board: 18x18, files a-r, ranks 1-18 (§2).
pub const DIMS: Dims = Dims { width: 18, height: 18 };

/// Chushin Shogi: the built-in variant once it is registered, else the file
/// `configs/variants/chushin.toml`. Loaded once per test binary (95 piece types).
pub fn chushin() -> Arc<Variant> {
    static VARIANT: OnceLock<Arc<Variant>> = OnceLock::new();
    VARIANT
        .get_or_init(|| {
            Variant::load("chushin").unwrap_or_else(|builtin| {
                let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs/variants/chushin.toml");
                let path = path.to_string_lossy().into_owned();
                Variant::load(&path).unwrap_or_else(|file| panic!("chushin does not load: {builtin}; {file}"))
            })
        })
        .clone()
}

// ---------------------------------------------------------------------------------------------
// Move keys and the dossier's notation
// ---------------------------------------------------------------------------------------------

/// A move's identifying data (§9.2): the moving piece's square, the final square (`== from`
/// for igui and pass), the victims other than `to` in ascending square index (locust, burn,
/// igui), and whether the piece promotes. Ordered as §9.3 orders move lists: by `from`, `to`,
/// victims (empty first), then without promotion before with.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveKey {
    pub from: Square,
    pub to: Square,
    pub victims: Vec<Square>,
    pub promote: bool,
}

impl MoveKey {
    /// A pass: the piece stays, nothing is removed.
    pub fn is_pass(&self) -> bool {
        self.from == self.to && self.victims.is_empty()
    }

    /// An igui: the piece stays and removes its victims.
    pub fn is_igui(&self) -> bool {
        self.from == self.to && !self.victims.is_empty()
    }

    /// Reads the dossier's notation (§9.3): `FROM`, then `x` + victim for each victim, then
    /// `-` + `TO`, then `+` if promoting. Victims must be in ascending square index, as the
    /// dossier prints them. Errors name the move and the character at fault.
    pub fn parse_dossier(text: &str) -> Result<MoveKey, String> {
        let fail = |rest: &str, what: &str| {
            let at = text.len() - rest.len() + 1;
            Err(format!("dossier move {text:?}, character {at}: {what}"))
        };
        let Some((from, mut rest)) = DIMS.split_square(text) else {
            return fail(text, "expected the moving piece's square (a1-r18)");
        };
        let mut victims: Vec<Square> = Vec::new();
        while let Some(after_x) = rest.strip_prefix('x') {
            let Some((victim, after)) = DIMS.split_square(after_x) else {
                return fail(after_x, "expected a victim's square after 'x'");
            };
            if victims.last().is_some_and(|&last| last >= victim) {
                return fail(after_x, "victims must be in ascending square index (§9.3)");
            }
            victims.push(victim);
            rest = after;
        }
        let Some(after_dash) = rest.strip_prefix('-') else {
            return fail(rest, "expected 'x' and a victim, or '-' and the final square");
        };
        let Some((to, rest)) = DIMS.split_square(after_dash) else {
            return fail(after_dash, "expected the final square after '-'");
        };
        let (promote, rest) = match rest.strip_prefix('+') {
            Some(after) => (true, after),
            None => (false, rest),
        };
        if !rest.is_empty() {
            return fail(rest, "unexpected text after the move");
        }
        if victims.contains(&from) || victims.contains(&to) {
            return fail(after_dash, "a victim square is also the move's from or to square (§9.2)");
        }
        if promote && from == to && victims.is_empty() {
            return fail(after_dash, "a pass never promotes (§8.1)");
        }
        Ok(MoveKey { from, to, victims, promote })
    }

    /// The key of a generated move of `pos`. Errors describe a move that has no place in
    /// Chushin Shogi's representation (§9.1): a kind other than a displacement, an igui
    /// (`Stationary`) or a pass, or one whose squares contradict its kind.
    pub fn of_move(pos: &Position, m: &Move) -> Result<MoveKey, String> {
        let printed = pos.move_to_string(m);
        let key = MoveKey { from: m.from, to: m.to, victims: m.captures().to_vec(), promote: m.piece.is_some() };
        let fits = match m.kind {
            MoveKind::Normal => m.from != m.to && m.aux.is_none(),
            MoveKind::Stationary => key.is_igui(),
            MoveKind::Pass => key.is_pass() && !key.promote,
            _ => false,
        };
        if m.is_doubled() || !fits {
            return Err(format!(
                "generated move {printed} ({:?}, from {}, to {}, victims {:?}) is not a Chushin move",
                m.kind,
                DIMS.square_name(m.from),
                DIMS.square_name(m.to),
                key.victims.iter().map(|&v| DIMS.square_name(v)).collect::<Vec<_>>()
            ));
        }
        Ok(key)
    }

    /// The dossier's text of the move (§9.3).
    pub fn dossier_text(&self) -> String {
        let mut out = DIMS.square_name(self.from);
        for &v in &self.victims {
            let _ = write!(out, "x{}", DIMS.square_display(v));
        }
        let _ = write!(out, "-{}", DIMS.square_display(self.to));
        if self.promote {
            out.push('+');
        }
        out
    }

    /// fairyzero's text of the move (docs/plans/chushin.md §3.3): `FROMTO`, then `x` + each
    /// victim, then `+`; a pass names its piece (`h9h9`), an igui is `h9h9xh10`.
    pub fn fairyzero_text(&self) -> String {
        let mut out = format!("{}{}", DIMS.square_display(self.from), DIMS.square_display(self.to));
        for &v in &self.victims {
            let _ = write!(out, "x{}", DIMS.square_display(v));
        }
        if self.promote {
            out.push('+');
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The examples file
// ---------------------------------------------------------------------------------------------

/// A piece of an example's position as the dossier lists it: `SLN@h9`, `G+CS@b2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub color: Color,
    /// The diagram ID (§4, §5), upper case, `+` first for a promoted piece.
    pub id: String,
    pub square: Square,
}

impl Placed {
    /// The piece's token in a position string (§14): upper case Sente, lower case Gote, tokens
    /// longer than one character in parentheses.
    pub fn token(&self) -> String {
        let id = if self.color == Color::Blue { self.id.clone() } else { self.id.to_ascii_lowercase() };
        if id.len() == 1 {
            id
        } else {
            format!("({id})")
        }
    }
}

/// One worked example of §11.
#[derive(Clone, Debug)]
pub struct Example {
    /// `11.1` … `11.19`.
    pub section: String,
    pub title: String,
    pub pieces: Vec<Placed>,
    pub side: Color,
    pub from: Square,
    /// The squares the dossier says hold an enemy captured on arrival.
    pub arrival: Vec<Square>,
    /// The move count printed above the list.
    pub count: usize,
    /// The moves as printed, in the printed order.
    pub moves: Vec<String>,
    /// The line of `examples.txt` where the block starts, for messages.
    pub line: usize,
}

impl Example {
    /// The position string (§14) of the example: the listed pieces on an empty board, the
    /// moving side to move (`w` = Sente).
    pub fn position_string(&self) -> String {
        let mut board: Vec<Vec<Option<String>>> = vec![vec![None; 18]; 18];
        for p in &self.pieces {
            let (file, rank) = (DIMS.file(p.square) as usize, DIMS.rank(p.square) as usize);
            board[rank][file] = Some(p.token());
        }
        let ranks: Vec<String> = board
            .iter()
            .rev()
            .map(|rank| {
                let mut text = String::new();
                let mut empty = 0;
                for cell in rank {
                    match cell {
                        None => empty += 1,
                        Some(token) => {
                            if empty > 0 {
                                let _ = write!(text, "{empty}");
                                empty = 0;
                            }
                            text += token;
                        }
                    }
                }
                if empty > 0 {
                    let _ = write!(text, "{empty}");
                }
                text
            })
            .collect();
        format!("{} {}", ranks.join("/"), if self.side == Color::Blue { "w" } else { "b" })
    }

    /// The example's position in the Chushin variant.
    pub fn position(&self) -> Position {
        let text = self.position_string();
        Position::from_fen(chushin(), &text)
            .unwrap_or_else(|e| panic!("§{} {}: position {text:?} does not load: {e}", self.section, self.title))
    }

    /// The piece the dossier places on `sq`, if any.
    pub fn piece_on(&self, sq: Square) -> Option<&Placed> {
        self.pieces.iter().find(|p| p.square == sq)
    }

    /// The dossier's move list as keys, in the printed order. Panics naming the move if one
    /// does not parse.
    pub fn keys(&self) -> Vec<MoveKey> {
        self.moves
            .iter()
            .map(|m| {
                MoveKey::parse_dossier(m)
                    .unwrap_or_else(|e| panic!("§{} (examples.txt:{}): {e}", self.section, self.line))
            })
            .collect()
    }

    /// Everything that can be checked without the move generator, so that a transcription or
    /// parser mistake is not taken for an engine bug: the printed count, the canonical order of
    /// §9.3 (which implies no move twice), every move starting on `from`, the moving piece being
    /// the side's, and the "captured on arrival" squares being exactly the listed destinations
    /// that hold an enemy. Returns every problem found.
    pub fn transcription_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut seen = BTreeSet::new();
        for p in &self.pieces {
            if !seen.insert(p.square) {
                problems.push(format!("{} holds two pieces", DIMS.square_name(p.square)));
            }
        }
        match self.piece_on(self.from) {
            Some(p) if p.color == self.side => {}
            Some(_) => problems.push(format!("the piece on {} is not the side to move's", DIMS.square_name(self.from))),
            None => problems.push(format!("no piece on the moving square {}", DIMS.square_name(self.from))),
        }
        if self.moves.len() != self.count {
            problems.push(format!("{} moves listed, the dossier counts {}", self.moves.len(), self.count));
        }
        let mut keys = Vec::new();
        for text in &self.moves {
            match MoveKey::parse_dossier(text) {
                Ok(key) => keys.push(key),
                Err(e) => problems.push(e),
            }
        }
        for pair in keys.windows(2) {
            if pair[0] >= pair[1] {
                problems.push(format!(
                    "{} is listed before {}: not the canonical order of §9.3",
                    pair[0].dossier_text(),
                    pair[1].dossier_text()
                ));
            }
        }
        for key in &keys {
            if key.from != self.from {
                problems.push(format!("{} does not start on {}", key.dossier_text(), DIMS.square_name(self.from)));
            }
            for &v in &key.victims {
                if self.piece_on(v).is_none_or(|p| p.color == self.side) {
                    problems.push(format!(
                        "{}: no enemy on the victim square {}",
                        key.dossier_text(),
                        DIMS.square_name(v)
                    ));
                }
            }
            if key.to != key.from && self.piece_on(key.to).is_some_and(|p| p.color == self.side) {
                problems.push(format!("{}: lands on a friend", key.dossier_text()));
            }
        }
        let enemy_destinations: BTreeSet<Square> = keys
            .iter()
            .filter(|k| k.to != k.from && self.piece_on(k.to).is_some_and(|p| p.color != self.side))
            .map(|k| k.to)
            .collect();
        let arrival: BTreeSet<Square> = self.arrival.iter().copied().collect();
        if enemy_destinations != arrival {
            let names = |set: &BTreeSet<Square>| set.iter().map(|&s| DIMS.square_name(s)).collect::<Vec<_>>().join(" ");
            problems.push(format!(
                "captured on arrival: the dossier says [{}], the listed moves land on enemies on [{}]",
                names(&arrival),
                names(&enemy_destinations)
            ));
        }
        problems
    }
}

fn examples_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/chushin/examples.txt")
}

/// Every example of `examples.txt`, in file order. Panics naming the line of a malformed one.
pub fn examples() -> Vec<Example> {
    let path = examples_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_examples(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()))
}

/// The example of dossier section `section` (`"11.4"`).
pub fn example(section: &str) -> Example {
    examples()
        .into_iter()
        .find(|e| e.section == section)
        .unwrap_or_else(|| panic!("examples.txt has no example {section}"))
}

fn parse_square(text: &str, line: usize) -> Result<Square, String> {
    DIMS.parse_square(text).ok_or_else(|| format!("{line}: {text:?} is not a square of the 18x18 board (a1-r18)"))
}

/// `S<ID>@<square>` or `G<ID>@<square>`.
fn parse_placed(entry: &str, line: usize) -> Result<Placed, String> {
    let bad = |why: &str| format!("{line}: piece {entry:?}: {why}");
    let color = match entry.chars().next() {
        Some('S') => Color::Blue,
        Some('G') => Color::Tan,
        _ => return Err(bad("must start with S (Sente) or G (Gote)")),
    };
    let (id, square) = entry[1..].split_once('@').ok_or_else(|| bad("expected <ID>@<square>"))?;
    let letters = id.strip_prefix('+').unwrap_or(id);
    if letters.is_empty() || letters.len() > 2 || !letters.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(bad("the ID must be one or two upper-case letters, '+' first if promoted"));
    }
    Ok(Placed { color, id: id.to_string(), square: parse_square(square, line)? })
}

/// Parses the examples file (format in its header). Errors start with the line number.
pub fn parse_examples(text: &str) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    let mut current: Option<Example> = None;
    // Inside a block, after `moves <count>` and before `end`.
    let mut in_moves = false;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if in_moves {
            if content == "end" {
                in_moves = false;
                out.extend(current.take());
            } else {
                let block = current.as_mut().expect("moves are read inside a block");
                block
                    .moves
                    .extend(content.split([',', ' ']).map(str::trim).filter(|m| !m.is_empty()).map(String::from));
            }
            continue;
        }
        let (keyword, rest) = content.split_once(' ').unwrap_or((content, ""));
        let rest = rest.trim();
        if keyword == "example" {
            if current.is_some() {
                return Err(format!("{line}: a new example starts before the previous block's 'moves' and 'end'"));
            }
            let (section, title) =
                rest.split_once(' ').ok_or_else(|| format!("{line}: expected 'example <section> <title>'"))?;
            current = Some(Example {
                section: section.to_string(),
                title: title.to_string(),
                pieces: Vec::new(),
                side: Color::Blue,
                from: Square::NONE,
                arrival: Vec::new(),
                count: 0,
                moves: Vec::new(),
                line,
            });
            continue;
        }
        let block = current.as_mut().ok_or_else(|| format!("{line}: {keyword:?} outside an example block"))?;
        match keyword {
            "pieces" => {
                for entry in rest.split_whitespace() {
                    block.pieces.push(parse_placed(entry, line)?);
                }
            }
            "side" => {
                block.side = match rest {
                    "sente" => Color::Blue,
                    "gote" => Color::Tan,
                    _ => return Err(format!("{line}: side must be 'sente' or 'gote', not {rest:?}")),
                }
            }
            "from" => block.from = parse_square(rest, line)?,
            "arrival" => {
                for sq in rest.split_whitespace() {
                    block.arrival.push(parse_square(sq, line)?);
                }
            }
            "moves" => {
                block.count =
                    rest.parse().map_err(|_| format!("{line}: 'moves' needs the printed count, not {rest:?}"))?;
                if block.from.is_none() || block.pieces.is_empty() {
                    return Err(format!("{line}: 'pieces' and 'from' must come before 'moves'"));
                }
                in_moves = true;
            }
            _ => return Err(format!("{line}: unknown keyword {keyword:?}")),
        }
    }
    if let Some(open) = current {
        return Err(format!("{}: example {} has no 'moves' ... 'end'", open.line, open.section));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Comparing with the generator
// ---------------------------------------------------------------------------------------------

/// The legal moves of `pos` that start on `from` (the piece's passes and igui included, which
/// start there too), as keys, each with fairyzero's printed text. Problems (a move that is not a
/// Chushin move, one effect generated twice, a promotion to the wrong type) are returned as
/// messages rather than panics so that a test reports them together with the list difference.
///
/// With `geometry_only`, the moves come from [`Position::pseudo_legal_moves`] instead (no
/// game-over test; Chushin has no other filter, §8.3), so that a position the engine wrongly
/// takes for finished still shows what the pieces generate.
pub fn generated_from(pos: &mut Position, from: Square, geometry_only: bool) -> (Vec<(MoveKey, String)>, Vec<String>) {
    let mut list = fairyzero_rules::MoveList::new();
    if geometry_only {
        pos.pseudo_legal_moves(&mut list);
    } else {
        pos.legal_moves(&mut list);
    }
    let variant = pos.variant().clone();
    let mut keys: Vec<(MoveKey, String)> = Vec::new();
    let mut problems = Vec::new();
    for m in list.iter().filter(|m| m.from == from) {
        let printed = pos.move_to_string(m);
        match MoveKey::of_move(pos, m) {
            Ok(key) => {
                if let (Some(target), Some(mover)) = (m.piece, pos.piece_at(from)) {
                    let mover_def = variant.piece_def(mover.kind());
                    let expected = format!("+{}", mover_def.token);
                    let target_token = &variant.piece_def(target).token;
                    if !target_token.eq_ignore_ascii_case(&expected) {
                        problems.push(format!(
                            "{printed} promotes to {target_token}, the dossier's promotion is {expected} (§5)"
                        ));
                    }
                }
                keys.push((key, printed));
            }
            Err(e) => problems.push(e),
        }
    }
    keys.sort();
    for pair in keys.windows(2) {
        if pair[0].0 == pair[1].0 {
            problems.push(format!(
                "one effect generated twice: {} ({} and {})",
                pair[0].0.dossier_text(),
                pair[0].1,
                pair[1].1
            ));
        }
    }
    (keys, problems)
}

/// Compares the moving piece's complete move set with the dossier's list, both ways. Returns a
/// report of every difference (empty if they agree), moves in the dossier's notation with
/// fairyzero's text of the extra ones.
pub fn compare_with_dossier(example: &Example) -> String {
    let mut pos = example.position();
    let mut report = String::new();
    if pos.side_to_move() != example.side {
        let _ = writeln!(report, "  side to move is {:?}, expected {:?}", pos.side_to_move(), example.side);
    }
    // §14: printing a parsed position string gives it back unchanged (promoted tokens included).
    let printed = pos.to_fen();
    if printed != example.position_string() {
        let _ = writeln!(report, "  the position prints as {printed}");
    }
    // §14: the §11 positions have no royal on either side and are played as usual; only a
    // side without royals facing one with royals has lost.
    let finished = pos.immediate_outcome();
    if let Some(outcome) = finished {
        let _ = writeln!(
            report,
            "  the engine takes the royal-less position for finished ({outcome:?}) and generates no move; \
             §14: it is played as usual. The differences below compare the pseudo-legal moves"
        );
    }
    let (generated, problems) = generated_from(&mut pos, example.from, finished.is_some());
    for p in &problems {
        let _ = writeln!(report, "  {p}");
    }
    let want: BTreeSet<MoveKey> = example.keys().into_iter().collect();
    let got: BTreeSet<MoveKey> = generated.iter().map(|(k, _)| k.clone()).collect();
    let missing: Vec<String> = want.difference(&got).map(MoveKey::dossier_text).collect();
    let extra: Vec<String> = generated
        .iter()
        .filter(|(k, _)| !want.contains(k))
        .map(|(k, printed)| format!("{} (fairyzero {printed})", k.dossier_text()))
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "  missing ({}, listed by the dossier, not generated): {}",
            missing.len(),
            missing.join(", ")
        );
    }
    if !extra.is_empty() {
        let _ = writeln!(report, "  extra ({}, generated, not in the dossier): {}", extra.len(), extra.join(", "));
    }
    if report.is_empty() {
        return report;
    }
    format!(
        "§{} {} (examples.txt:{}), position {}\n  dossier {} moves, generated {}\n{report}",
        example.section,
        example.title,
        example.line,
        example.position_string(),
        want.len(),
        generated.len()
    )
}
