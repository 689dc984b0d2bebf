//! The variant registry: every built-in variant and every row of the seed's variant list, in one
//! table that the loader, `fairyzero variants` and `docs/reference-variants.md` ("The whole
//! list") all read, so that none of them keeps its own copy.
//!
//! The list is the seed-002 inventory (`../shared/rules/variant-list.md`, outside this
//! repository): 85 variants numbered 1 to 85, each of fit class A (data only), B (needs a rule
//! hook) or C (out of scope for two-player perfect-information self-play), plus orthodox chess
//! as the baseline row 0. A row is either built in (its variant file is embedded here), not
//! implemented yet (with what it needs), or out of scope (with why). Built-ins that are not on the
//! list (Grand, Courier, the 6x6 and 5x5 boards, Adrian King's games, Chushin Shogi) have no
//! number and no class.
//!
//! Names: each entry has one canonical name (what records and checkpoints store, and the `name`
//! of its variant file) and any number of aliases. Names and aliases are lower-case ASCII, are
//! matched exactly, and never collide: a unit test checks that each resolves to one entry. A
//! name of a row that is not implemented loads to an error that says so and why
//! ([`crate::VariantError::Unsupported`]).

/// The seed's fit class of a list row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Fits a data-driven two-player perfect-information engine.
    A,
    /// Two-player perfect information, but needs a rule hook (code beyond the variant file).
    B,
    /// Out of scope: hidden information, chance, more than two players.
    C,
}

impl Class {
    pub fn letter(self) -> char {
        match self {
            Class::A => 'A',
            Class::B => 'B',
            Class::C => 'C',
        }
    }
}

/// Whether fairyzero plays an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Built in: the embedded variant file (TOML).
    Implemented(&'static str),
    /// Not implemented yet: what it needs (for class B, the rule hook).
    NotYet(&'static str),
    /// Deliberately not implemented: why.
    OutOfScope(&'static str),
    /// A list row played as several built-ins (one per array: the odds games): the sentence that
    /// names them. The built-ins carry the row's number too; the row's own name only points to them.
    Several(&'static str),
}

/// One variant: a built-in, a list row that is not implemented, or both (a built-in list row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The canonical name.
    pub name: &'static str,
    /// Other names that load the same entry.
    pub aliases: &'static [&'static str],
    /// The seed-002 list number: 0 is orthodox chess (the list's baseline row), 1..=85 the
    /// variants; `None` for built-ins that are not on the list.
    pub number: Option<u8>,
    /// The list's fit class; `None` when not on the list.
    pub class: Option<Class>,
    /// The variant's name on the list (its own title when not on the list), one line.
    pub title: &'static str,
    pub status: Status,
}

impl Entry {
    /// The embedded variant file, for a built-in.
    pub fn text(&self) -> Option<&'static str> {
        match self.status {
            Status::Implemented(text) => Some(text),
            _ => None,
        }
    }

    pub fn is_implemented(&self) -> bool {
        matches!(self.status, Status::Implemented(_))
    }

    /// Why it is not implemented (what it needs, or why it is out of scope).
    pub fn reason(&self) -> Option<&'static str> {
        match self.status {
            Status::Implemented(_) => None,
            Status::NotYet(reason) | Status::OutOfScope(reason) | Status::Several(reason) => Some(reason),
        }
    }

    /// `implemented`, `not yet` or `out of scope`.
    pub fn status_label(&self) -> &'static str {
        match self.status {
            Status::Implemented(_) => "implemented",
            Status::NotYet(_) => "not yet",
            Status::OutOfScope(_) => "out of scope",
            Status::Several(_) => "several variants",
        }
    }

    /// `#19`, or `-` when not on the list.
    pub fn number_label(&self) -> String {
        self.number.map_or_else(|| "-".to_string(), |n| format!("#{n}"))
    }

    /// `A`, `B`, `C`, or `-` when not on the list.
    pub fn class_label(&self) -> String {
        self.class.map_or_else(|| "-".to_string(), |c| c.letter().to_string())
    }

    /// The canonical name or one of the aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// Every entry: the built-ins first, in listing order (the order `fairyzero variants`, the UCI
/// `UCI_Variant` combo and XBoard's `feature variants` use), then the list rows that are not
/// implemented, by number, then the other refusals.
pub fn entries() -> &'static [Entry] {
    REGISTRY
}

/// The entry a canonical name or an alias names.
pub fn find(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.answers_to(name))
}

/// The list row with this number (0..=85): its entry, or for a row played as several built-ins
/// (the odds games), the row's own entry that names them.
pub fn by_number(number: u8) -> Option<&'static Entry> {
    let mut rows = REGISTRY.iter().filter(|e| e.number == Some(number));
    let first = rows.next()?;
    Some(std::iter::once(first).chain(rows).find(|e| matches!(e.status, Status::Several(_))).unwrap_or(first))
}

/// The built-ins that play a list row: one for most rows, several for a row of several arrays.
pub fn builtins_of_row(number: u8) -> impl Iterator<Item = &'static Entry> {
    REGISTRY.iter().filter(move |e| e.number == Some(number) && e.is_implemented())
}

/// The error text for a name of an entry that is not implemented (the loader's
/// [`crate::VariantError::Unsupported`]).
pub(crate) fn unsupported_message(name: &str, reason: &str) -> String {
    match find(name) {
        Some(e @ Entry { number: Some(n), class: Some(class), .. }) => {
            let what = match e.status {
                Status::OutOfScope(_) => "is out of scope",
                Status::Several(_) => "is not one variant",
                _ => "is not implemented yet",
            };
            let alias = if e.name == name { String::new() } else { format!(" (`{}`)", e.name) };
            format!(
                "variant {name:?}{alias} is #{n} of the variant list ({}, class {}) but {what}: {reason}",
                e.title,
                class.letter()
            )
        }
        _ => format!("variant {name:?} is not supported: {reason}"),
    }
}

const fn row(
    number: u8,
    title: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    class: Class,
    status: Status,
) -> Entry {
    Entry { name, aliases, number: Some(number), class: Some(class), title, status }
}

const fn off_list(name: &'static str, aliases: &'static [&'static str], title: &'static str, status: Status) -> Entry {
    Entry { name, aliases, number: None, class: None, title, status }
}

/// A built-in's variant file, embedded at compile time so that every command works without files.
macro_rules! builtin {
    ($name:literal) => {
        Status::Implemented(include_str!(concat!("../../../configs/variants/", $name, ".toml")))
    };
}

use Class::{A, B, C};
use Status::{NotYet, OutOfScope, Several};

/// The odds games' pointer (#22).
const ODDS: &str = "six handicap arrays, each its own variant with White giving the odds: `pawnodds` (f-pawn), \
     `knightodds` (queen's knight), `rookodds` (queen's rook), `rookpawnodds` (queen's rook and f-pawn), \
     `rookknightodds` (queen's rook and knight), `queenodds`";

/// The Pawns Game's pointer (#23).
const PAWNS_GAME: &str = "two named handicap arrays, White adding pawns on its 3rd rank (the seed leaves their \
     squares to the player): `pawnsforqueen` (eight pawns for the queen), `pawnsforrook` (four pawns on c3-f3 for \
     the queen's rook)";

static REGISTRY: &[Entry] = &[
    // The built-ins, in listing order.
    row(0, "Orthodox chess (the list's baseline)", "chess", &["orthodox", "wild0"], A, builtin!("chess")),
    row(33, "Capablanca Chess", "capablanca", &[], A, builtin!("capablanca")),
    off_list("grand", &[], "Grand chess (Christian Freeling), 10x10", builtin!("grand")),
    row(37, "Shatranj", "shatranj", &[], A, builtin!("shatranj")),
    off_list("courier", &[], "Courier chess, 12x8", builtin!("courier")),
    row(1, "Losing Chess", "antichess", &["losing", "losingchess", "giveaway"], A, builtin!("antichess")),
    off_list("losalamos", &[], "Los Alamos chess, 6x6", builtin!("losalamos")),
    off_list("gardner", &[], "Gardner minichess, 5x5", builtin!("gardner")),
    row(28, "Berolina Pawns Game", "berolina", &[], A, builtin!("berolina")),
    row(26, "Kinglet", "kinglet", &[], A, builtin!("kinglet")),
    off_list("antilosalamos", &[], "Anti-Los Alamos (losing chess on 6x6)", builtin!("antilosalamos")),
    row(19, "Knighted Queen", "amazon", &["knightedqueen"], A, builtin!("amazon")),
    row(20, "Faery Chess (one enhanced piece)", "faerychess", &["faery"], A, builtin!("faerychess")),
    row(21, "Long Leapers", "longleapers", &[], A, builtin!("longleapers")),
    row(27, "Annihilation", "annihilation", &[], A, builtin!("annihilation")),
    row(78, "English stalemate rule", "englishstalemate", &[], A, builtin!("englishstalemate")),
    row(2, "Give away", "giveawayking", &[], A, builtin!("giveawayking")),
    row(25, "Twin Chess", "twinchess", &["twin"], A, builtin!("twinchess")),
    row(54, "Historical 10x10 giraffe game", "giraffe10", &[], A, builtin!("giraffe10")),
    row(62, "Reverso", "reverso", &[], A, builtin!("reverso")),
    row(24, "March of the Pawns", "marchofthepawns", &["march"], A, builtin!("marchofthepawns")),
    row(67, "ICS wild 5", "wild5", &[], A, builtin!("wild5")),
    row(68, "ICS wild 6", "wild6", &[], A, builtin!("wild6")),
    row(69, "ICS wild 7", "wild7", &[], A, builtin!("wild7")),
    row(70, "ICS wild 8", "wild8", &[], A, builtin!("wild8")),
    // The arrays drawn by chance for each game (`[start_generator]`).
    row(5, "Randomized Chess", "randomized", &[], A, builtin!("randomized")),
    row(64, "ICS wild 2", "wild2", &[], A, builtin!("wild2")),
    row(65, "ICS wild 3", "wild3", &[], A, builtin!("wild3")),
    row(66, "ICS wild 4", "wild4", &[], A, builtin!("wild4")),
    row(6, "Transcendental Chess", "transcendental", &[], B, builtin!("transcendental")),
    row(59, "Protean Chess", "protean", &[], B, builtin!("protean")),
    row(56, "Historical 13x13 zebra/camel game", "zebra13", &[], B, builtin!("zebra13")),
    // The odds games (#22): one built-in per handicap array, White giving the odds.
    row(22, "Odds games: pawn odds (f-pawn)", "pawnodds", &[], A, builtin!("pawnodds")),
    row(22, "Odds games: knight odds (queen's knight)", "knightodds", &[], A, builtin!("knightodds")),
    row(22, "Odds games: rook odds (queen's rook)", "rookodds", &[], A, builtin!("rookodds")),
    row(22, "Odds games: rook and pawn odds (queen's rook, f-pawn)", "rookpawnodds", &[], A, builtin!("rookpawnodds")),
    row(22, "Odds games: rook and knight odds (queen's rook and knight)", "rookknightodds", &[], A, builtin!("rookknightodds")),
    row(22, "Odds games: queen odds", "queenodds", &[], A, builtin!("queenodds")),
    row(79, "Xiangqi", "xiangqi", &["chinesechess"], A, builtin!("xiangqi")),
    // Castling given move by move (issue 21): kings that castle with given rooks.
    row(40, "Double King Chess", "doubleking", &[], A, builtin!("doubleking")),
    row(63, "ICS wild 1", "wild1", &[], A, builtin!("wild1")),
    row(41, "Double Chess", "doublechess", &[], A, builtin!("doublechess")),
    row(55, "Historical 12-file game", "historical12", &[], A, builtin!("historical12")),
    // The Pawns Game (#23): one built-in per named array, White adding pawns.
    row(23, "Pawns Game: eight pawns for the queen", "pawnsforqueen", &[], A, builtin!("pawnsforqueen")),
    row(23, "Pawns Game: four pawns for the queen's rook", "pawnsforrook", &[], A, builtin!("pawnsforrook")),
    // Board rules (issue 21): topology and the grid, applied in the move tables.
    row(60, "Cylindrical Chess", "cylinder", &["cylindrical"], B, builtin!("cylinder")),
    row(61, "Grid Chess", "grid", &[], B, builtin!("grid")),
    row(4, "Prohibition Chess = Checkless Chess", "checkless", &["prohibition"], B, builtin!("checkless")),
    row(32, "Rifle Chess", "rifle", &[], B, builtin!("rifle")),
    row(71, "ICS wild 9 (two kings each)", "wild9", &["twokings"], B, builtin!("wild9")),
    row(3, "Reflex Chess", "reflex", &[], B, builtin!("reflex")),
    // Capture side effects (issue 21): explosions (validated on modern atomic chess) and rebirth.
    off_list("atomic", &[], "Atomic chess (the modern game: blasts of both sides, pawns spared)", builtin!("atomic")),
    row(17, "Explosion Chess", "explosion", &[], B, builtin!("explosion")),
    row(29, "Circe Chess", "circe", &[], B, builtin!("circe")),
    // Multi-move turns (issue 21): each move of a turn is one ply of the same side (`[turns]`).
    row(11, "Two Move Chess", "twomove", &[], B, builtin!("twomove")),
    row(12, "Marseillaise (Double-Move) Chess", "marseillais", &["marseillaise"], B, builtin!("marseillais")),
    row(13, "Double move chess (Trenholme's list)", "doublemove", &[], B, builtin!("doublemove")),
    row(14, "Progressive Chess (Scottish)", "progressive", &["scottishprogressive"], B, builtin!("progressive")),
    row(15, "Monster Chess (as played in the post)", "monster", &[], B, builtin!("monster")),
    row(16, "Two for One", "twoforone", &[], B, builtin!("twoforone")),
    // Pieces in hand (issue 21): drops from a pocket, and a placement phase of forced drops.
    row(10, "Pocket Knight Chess", "pocketknight", &[], A, builtin!("pocketknight")),
    row(35, "Pre-chess", "prechess", &["placement"], A, builtin!("prechess")),
    // A king that goes anywhere and takes unguarded men (the `roam_unguarded` power).
    row(36, "Emperor King Chess", "emperorking", &[], B, builtin!("emperorking")),
    // A neutral token that copies every move (`[neutral_token]`).
    row(43, "Shadow Chess", "shadow", &[], B, builtin!("shadow")),
    row(44, "Imitator Chess", "imitator", &[], B, builtin!("imitator")),
    row(45, "Salt Shaker Chess", "saltshaker", &[], B, builtin!("saltshaker")),
    off_list("scirocco", &[], "Adrian King's Scirocco (2009), 10x10", builtin!("scirocco")),
    off_list("typhoon", &[], "Adrian King's Typhoon (2009 revision), 12x12", builtin!("typhoon")),
    off_list("jupiter", &[], "Adrian King's Jupiter (1999), 16x16", builtin!("jupiter")),
    off_list("chushin", &[], "Adam DeWitt's Chushin Shogi (2021), 18x18", builtin!("chushin")),
    // The list rows that are not implemented, by number.
    row(7, "Refusal Chess = Rejection Chess", "refusal", &["rejection"], B, NotYet("needs an opponent's veto sub-turn: the mover proposes, the opponent may refuse once")),
    row(8, "Compromise Chess", "compromise", &[], B, NotYet("needs the opponent to choose between two offered moves: an action is a pair of moves (a heavy hook)")),
    row(9, "May I?", "mayi", &[], B, NotYet("needs an opponent's approval sub-turn, and an approved move may leave the king en prise")),
    row(18, "Atomic chess (Hyatt's description)", "hyattatomic", &[], B, NotYet("needs one designated exploding piece a side (the `[explosion]` hook blasts on every capture), and the source does not say what sets it off")),
    row(22, "Odds games", "odds", &[], A, Several(ODDS)),
    row(23, "Pawns Game", "pawnsgame", &[], A, Several(PAWNS_GAME)),
    row(30, "Rebirth-Chess", "rebirth", &[], B, NotYet("needs drops restricted to a captured man's own starting square (per-piece identity)")),
    row(31, "Canadian (Madhouse) Chess", "madhouse", &["canadian"], B, NotYet("needs a placement sub-move after each capture (the capturer places the victim)")),
    row(34, "Super Chess (14x14)", "superchess", &[], B, NotYet("needs auras, rebirth, checkers captures and path movers (heavy), and the author calls the rules incomplete")),
    row(38, "Kriegspiel", "kriegspiel", &[], C, OutOfScope("hidden information: each player sees only his own board")),
    row(39, "Ultima = Baroque Chess", "ultima", &["baroque"], B, NotYet("needs the chameleon (captures each piece its own way); the withdrawer, long leaper, pincer, coordinator and immobilizer have powers, and the source leaves two rules open")),
    row(42, "Bughouse", "bughouse", &["siamese"], C, OutOfScope("four players in two teams on two boards, with clocks")),
    row(46, "Through the Looking Glass Chess (Alice chess)", "alice", &[], B, NotYet("needs a two-layer board: a move takes the piece to the other board (a heavy hook)")),
    row(47, "Ultima-Chess (file powers)", "ultimafile", &[], B, NotYet("needs move powers lent by the friendly pieces on the mover's file")),
    row(48, "Inverse-Ultima-Chess", "inverseultima", &[], B, NotYet("needs move powers lent by the friendly pieces on the destination's file (a heavy hook)")),
    row(49, "Neutral men", "neutralmen", &[], B, NotYet("needs neutral men that either side may move, not the one moved last turn")),
    row(50, "Robot Chess", "robot", &[], B, NotYet("needs programmed pawns that step by themselves before their owner's turns (per-piece state)")),
    row(51, "King of the Mountain", "kingofthemountain", &[], B, NotYet("needs a board that loses its outer ring every 10 moves a side, and a 30-move limit")),
    row(52, "Kamikaze", "kamikaze", &[], C, OutOfScope("hidden information: each side sets up behind a screen")),
    row(53, "WWII", "wwii", &[], C, OutOfScope("hidden information: a Kamikaze setup with Kriegspiel play")),
    row(57, "Trenholme's \"last piece moved\" chess", "lastpiecemoved", &[], B, NotYet("needs move powers set by the last piece moved (history), and the source gives two readings")),
    row(58, "Unambiguous Chess", "unambiguous", &[], B, NotYet("needs a legality filter on descriptive notation: ambiguous moves are illegal (a heavy hook)")),
    row(72, "Swap-setup chess with a negotiated queen", "swapsetup", &[], B, NotYet("needs a pre-game choice phase of swaps and of the queen's compound")),
    row(73, "Spanish rules (1283 manuscript)", "spanish1283", &[], B, NotYet("needs history-dependent rules (pawn double steps until the first capture, the ferz's first leap) and conditional promotion")),
    row(74, "Spanish rules (c. 1500)", "spanish1500", &[], B, NotYet("needs the king's one-off leap over unattacked squares and half-point results")),
    row(75, "Italian rules (14th c.)", "italian", &[], B, NotYet("needs a combined first move of king and queen, and the king's leap of #74")),
    row(76, "German rules (c. 1420)", "german", &[], B, NotYet("needs the hooks of #73 to #75, and the source leaves the regional results open")),
    row(77, "Free castling", "freecastling", &[], B, NotYet("needs castling with many destinations (king and rook anywhere within their span)")),
    row(80, "Xiangqi handicap games", "xiangqihandicap", &[], B, NotYet("needs uncapturable \"iron\" men and restricted opening moves, after #79")),
    row(81, "Qiguo Xiangqi (Seven Warring States)", "qiguo", &[], C, OutOfScope("seven players on a 19x19 board, with alliances")),
    row(82, "Game of the Three Kingdoms", "threekingdoms", &[], C, OutOfScope("three players on a hexagonal board")),
    row(83, "Half-board face-down xiangqi", "darkxiangqi", &["banqi"], C, OutOfScope("hidden information and chance: the pieces start face down")),
    row(84, "Poker Chess", "poker", &[], C, OutOfScope("chance and a hidden hand of cards")),
    row(85, "Dice chess", "dice", &[], C, OutOfScope("chance: dice choose the piece to move")),
    // Other refusals.
    off_list(
        "jupiter-2009-partial",
        &[],
        "Jupiter (2009 revision, partial rules)",
        OutOfScope(
            "jupiter.md Appendix A's partial 2009 rule set is out of scope (issue #16): it leaves most of the 2009 \
             piece changes unknown; play `jupiter`, the complete 1999 rules",
        ),
    ),
];

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::Variant;

    /// Every name and alias is unique across the registry and finds exactly its own entry.
    #[test]
    fn names_and_aliases_never_collide() {
        let mut owners: HashMap<&str, Vec<&str>> = HashMap::new();
        for e in entries() {
            for n in std::iter::once(e.name).chain(e.aliases.iter().copied()) {
                assert!(
                    !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                    "{n:?} ({}): names are lower-case ASCII letters, digits and '-'",
                    e.name
                );
                owners.entry(n).or_default().push(e.name);
            }
        }
        let clashes: Vec<_> = owners.iter().filter(|(_, o)| o.len() > 1).collect();
        assert!(clashes.is_empty(), "names used twice: {clashes:?}");
        for (n, owner) in &owners {
            let matching: Vec<&str> = entries().iter().filter(|e| e.answers_to(n)).map(|e| e.name).collect();
            assert_eq!(matching, [owner[0]], "{n:?}");
            assert_eq!(find(n).map(|e| e.name), Some(owner[0]), "{n:?}");
        }
        assert_eq!(find("giveaway").map(|e| e.name), Some("antichess"), "the issue's example");
        assert_eq!(find("Chess"), None, "names match exactly");
    }

    /// The list's rows 0..=85 each appear once, with the seed's class counts (A 32, B 44, C 9
    /// over rows 1..=85), and the status agrees with the class.
    #[test]
    fn every_list_row_appears_once_with_its_class() {
        for n in 0..=85u8 {
            let rows: Vec<&Entry> = entries().iter().filter(|e| e.number == Some(n)).collect();
            let names: Vec<&str> = rows.iter().map(|e| e.name).collect();
            match by_number(n).map(|e| e.status) {
                // A row of several arrays: its own entry names every built-in of the row, which
                // share its class; nothing else has the number.
                Some(Status::Several(reason)) => {
                    let builtins: Vec<&str> = builtins_of_row(n).map(|e| e.name).collect();
                    assert!(builtins.len() >= 2 && builtins.len() + 1 == rows.len(), "row #{n}: {names:?}");
                    for b in &builtins {
                        assert!(reason.contains(&format!("`{b}`")), "row #{n}: {b} is not named in {reason:?}");
                    }
                    assert!(rows.iter().all(|e| e.class == rows[0].class), "row #{n}: one class");
                }
                _ => assert_eq!(rows.len(), 1, "row #{n}: {names:?}"),
            }
        }
        assert!(entries().iter().all(|e| e.number.is_none_or(|n| n <= 85)));
        assert!(entries().iter().all(|e| e.number.is_some() == e.class.is_some()), "on the list = has a class");
        let count = |c: Class| (1..=85u8).filter(|&n| by_number(n).is_some_and(|e| e.class == Some(c))).count();
        assert_eq!((count(Class::A), count(Class::B), count(Class::C)), (32, 44, 9));
        for e in entries() {
            match (e.class, e.status) {
                (Some(Class::C), s) => {
                    assert!(matches!(s, Status::OutOfScope(_)), "{}: class C is out of scope", e.name)
                }
                (Some(_), Status::OutOfScope(_)) => panic!("{}: only class C rows are out of scope", e.name),
                _ => {}
            }
            if let Some(reason) = e.reason() {
                assert!(!reason.is_empty() && !reason.contains('|') && !reason.contains('\n'), "{}", e.name);
            }
        }
        assert_eq!(by_number(79).map(|e| e.name), Some("xiangqi"));
        assert_eq!(by_number(0).map(|e| e.name), Some("chess"));
        assert_eq!(by_number(22).map(|e| e.name), Some("odds"));
        // The built-ins come first, so that the listing order is the registry order.
        let first_other = entries().iter().position(|e| !e.is_implemented()).unwrap();
        assert!(entries()[first_other..].iter().all(|e| !e.is_implemented()));
    }

    /// Each built-in's file is named as its entry, and every alias loads the same variant.
    #[test]
    fn builtin_files_carry_their_names_and_aliases_load() {
        for e in entries().iter().filter(|e| e.is_implemented()) {
            let table: toml::Table = e.text().unwrap().parse().unwrap();
            assert_eq!(table.get("name").and_then(|n| n.as_str()), Some(e.name), "configs/variants/{}.toml", e.name);
            for alias in e.aliases {
                let v = Variant::load(alias).unwrap_or_else(|err| panic!("{alias}: {err}"));
                assert_eq!(v.name, e.name, "{alias}");
            }
        }
    }

    /// Loading a row that is not implemented says which row it is and why, by name or alias.
    #[test]
    fn rows_not_implemented_refuse_to_load_with_the_reason() {
        let err = |name: &str| Variant::load(name).map(|_| ()).expect_err(name).to_string();
        let e = err("compromise");
        assert!(e.contains("#8") && e.contains("class B") && e.contains("not implemented yet"), "{e}");
        assert!(e.contains("a pair of moves"), "{e}");
        let e = err("siamese");
        assert!(e.contains("\"siamese\" (`bughouse`)") && e.contains("#42") && e.contains("out of scope"), "{e}");
        assert!(e.contains("four players"), "{e}");
        let e = err("unambiguous");
        assert!(e.contains("class B") && e.contains("descriptive notation"), "{e}");
        for e in entries().iter().filter(|e| !e.is_implemented()) {
            for n in std::iter::once(e.name).chain(e.aliases.iter().copied()) {
                assert!(err(n).contains(e.reason().unwrap()), "{n}");
            }
        }
    }

    /// The odds games' row name points to its six built-ins, each its own array.
    #[test]
    fn the_odds_row_names_its_builtins() {
        let e = Variant::load("odds").map(|_| ()).expect_err("odds").to_string();
        assert!(e.contains("#22") && e.contains("is not one variant") && e.contains("`queenodds`"), "{e}");
        let starts: std::collections::HashSet<String> = builtins_of_row(22)
            .map(|odds| {
                Variant::load(odds.name).unwrap_or_else(|err| panic!("{}: {err}", odds.name)).spec.start.clone()
            })
            .chain([Variant::load("chess").unwrap().spec.start.clone()])
            .collect();
        assert_eq!(starts.len(), 7, "six handicap arrays, none the orthodox one: {starts:?}");
    }

    /// The start position's depth in the reference file, and how many other positions it holds:
    /// `FSF perft d5 (start), 3 more positions`.
    fn references(e: &Entry) -> String {
        let path = format!("{}/tests/data/{}.perft", env!("CARGO_MANIFEST_DIR"), e.name);
        let Ok(text) = std::fs::read_to_string(&path) else { return "none".into() };
        let oracle = if text.lines().any(|l| l.starts_with("# Rules:") && l.contains("Fairy-Stockfish")) {
            "FSF perft"
        } else {
            "perft"
        };
        let mut blocks: Vec<(String, u32)> = Vec::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some("fen"), Some(board)) => blocks.push((board.to_string(), 0)),
                (Some("perft"), Some(depth)) => {
                    let last = blocks.last_mut().unwrap_or_else(|| panic!("{path}: perft before fen"));
                    last.1 = last.1.max(depth.parse().unwrap_or_else(|_| panic!("{path}: {line}")));
                }
                _ => {}
            }
        }
        let (board, depth) = blocks.first().unwrap_or_else(|| panic!("{path}: no position"));
        let v = Variant::load(e.name).unwrap();
        // A variant whose array is drawn by chance: the first is the array of seed 0.
        let (start, first) = match v.generated_start(0) {
            Some(fen) => (fen, "seed 0"),
            // The concluded start: a neutral token's `*` is added to the spec's (`[neutral_token]`).
            None => (v.start.clone(), "start"),
        };
        assert_eq!(Some(board.as_str()), start.split_whitespace().next(), "{path}: the first is the {first}");
        match blocks.len() - 1 {
            0 => format!("{oracle} d{depth} ({first})"),
            1 => format!("{oracle} d{depth} ({first}), 1 more position"),
            more => format!("{oracle} d{depth} ({first}), {more} more positions"),
        }
    }

    /// The table of `docs/reference-variants.md`, §5 "The whole list".
    fn whole_list_table() -> String {
        let mut rows: Vec<&Entry> = entries().iter().filter(|e| e.number.is_some()).collect();
        // A row of several built-ins: its own line first, then one line per built-in.
        rows.sort_by_key(|e| (e.number, e.is_implemented()));
        let mut out = String::from(
            "| # | name on the list | fairyzero name | class | status | references checked | reason when not implemented |\n\
             | --- | --- | --- | --- | --- | --- | --- |\n",
        );
        for e in rows {
            let mut name = format!("`{}`", e.name);
            if !e.aliases.is_empty() {
                let aliases: Vec<String> = e.aliases.iter().map(|a| format!("`{a}`")).collect();
                name.push_str(&format!(" (also {})", aliases.join(", ")));
            }
            let references = if e.is_implemented() { references(e) } else { "-".into() };
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                e.number.unwrap(),
                e.title,
                name,
                e.class_label(),
                e.status_label(),
                references,
                e.reason().unwrap_or("")
            ));
        }
        out
    }

    /// The document's table is the registry's, so neither can drift: on a difference the test
    /// prints the table to paste.
    #[test]
    fn reference_doc_lists_the_whole_registry() {
        let table = whole_list_table();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/reference-variants.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let section = doc.split_once("\n## 5. The whole list\n").map(|(_, s)| s).unwrap_or("");
        assert!(
            section.contains(&table),
            "{path}: the section \"## 5. The whole list\" must contain the registry's table; paste this:\n\n{table}"
        );
    }
}
