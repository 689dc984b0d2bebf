//! Validation and conclusion: [`VariantSpec`] → [`Variant`], every problem of a file reported
//! at once, each naming its field.

use std::{collections::BTreeMap, path::Path, sync::Arc};

use crate::{
    moves::MAX_EXTRA_CAPTURES,
    spec::{
        betza::{self, Atom, Jump},
        load::{self, builtin_text, read_parent_file, ParentReader, VariantError},
        mirror::{betza_symmetric, power_symmetric},
        power_spec::{ApproachEffect, PowerSpec},
    },
    types::{Dims, PieceType, Square, MAX_BOARD_SIDE},
    variant::{
        attack_tables::AttackTables, legs::LegTries, powers::Power, regions, synthetic, tables::build_tables, topology,
        zobrist::Zobrist, Castling, Extinction, PassRule, PieceDef, PieceSpec, Rules, TurnRules, Variant, VariantSpec,
    },
};

impl Variant {
    /// Loads a built-in variant by name, a TOML file by path, or a synthetic variant
    /// (`synthetic:12x12:75`, see [`crate::variant::synthetic`]).
    pub fn load(name_or_path: &str) -> Result<Arc<Variant>, VariantError> {
        if name_or_path.starts_with(synthetic::PREFIX) {
            return synthetic::load(name_or_path);
        }
        if let Some(text) = builtin_text(name_or_path) {
            return Variant::from_toml(name_or_path, text, None);
        }
        if let Some(&(name, reason)) = load::UNSUPPORTED.iter().find(|(n, _)| *n == name_or_path) {
            return Err(VariantError::Unsupported { name: name.to_string(), reason });
        }
        let path = Path::new(name_or_path);
        if path.extension().is_some_and(|e| e == "toml") || path.exists() {
            let text = std::fs::read_to_string(path)
                .map_err(|error| VariantError::Io { path: path.display().to_string(), error })?;
            return Variant::from_toml(&path.display().to_string(), &text, path.parent());
        }
        Err(VariantError::Unknown(name_or_path.to_string()))
    }

    /// Parses variant TOML text. `source_name` names it in errors; `base_dir` resolves relative
    /// `extends` paths.
    pub fn from_toml(source_name: &str, text: &str, base_dir: Option<&Path>) -> Result<Arc<Variant>, VariantError> {
        Variant::from_toml_with_parents(source_name, text, base_dir, &read_parent_file)
    }

    /// [`Variant::from_toml`] with the parents of `extends` read by `read_parent` instead of
    /// from files (built-in names always resolve first): for callers that must not touch the
    /// file system, such as the fuzz targets.
    pub fn from_toml_with_parents(
        source_name: &str,
        text: &str,
        base_dir: Option<&Path>,
        read_parent: &ParentReader<'_>,
    ) -> Result<Arc<Variant>, VariantError> {
        let (spec, mut problems) = load::read_spec(source_name, text, base_dir, read_parent)?;
        let built = spec.and_then(|spec| Variant::build(spec).map_err(|e| problems.extend(e.problems)).ok());
        match built {
            Some(variant) if problems.is_empty() => Ok(Arc::new(variant)),
            _ => Err(load::invalid(source_name, &problems)),
        }
    }

    /// Validates a specification. Returns every problem found, each naming its field.
    pub fn build(spec: VariantSpec) -> Result<Variant, BuildError> {
        Variant::conclude(spec).map_err(|problems| BuildError { problems })
    }

    fn conclude(spec: VariantSpec) -> Result<Variant, Vec<String>> {
        let mut problems = Vec::new();
        if !(1..=MAX_BOARD_SIDE).contains(&spec.width) || !(1..=MAX_BOARD_SIDE).contains(&spec.height) {
            problems.push(format!(
                "fields `width`/`height`: board {}x{} is outside 1..={MAX_BOARD_SIDE}",
                spec.width, spec.height
            ));
            return Err(problems);
        }
        let dims = Dims { width: spec.width, height: spec.height };
        if spec.pieces.is_empty() {
            problems.push("field `piece`: a variant needs at least one piece type".into());
        }
        if spec.pieces.len() > 255 {
            problems.push(format!("field `piece`: {} piece types (at most 255)", spec.pieces.len()));
            return Err(problems);
        }

        // Tokens.
        let mut by_token: BTreeMap<String, PieceType> = BTreeMap::new();
        for (i, p) in spec.pieces.iter().enumerate() {
            let upper = p.token.to_ascii_uppercase();
            // Shogi's promoted pieces are written with a leading `+` (chushin-shogi.md §14).
            let letters = upper.strip_prefix('+').unwrap_or(&upper);
            let valid = !letters.is_empty() && letters.chars().all(|c| c.is_ascii_alphabetic()) && upper.len() <= 8;
            if !valid {
                problems.push(format!(
                    "piece {:?}: field `token` {:?} must be 1-8 ASCII letters, optionally after one `+`",
                    p.name, p.token
                ));
            } else if by_token.insert(upper.clone(), PieceType(i as u8)).is_some() {
                problems
                    .push(format!("piece {:?}: field `token` {:?} is used twice (case-insensitive)", p.name, p.token));
            }
        }
        let lookup = |token: &str| by_token.get(&token.to_ascii_uppercase()).copied();

        // Regions first: a regional piece's extra moves count for its de-duplication.
        let piece_regions = regions::resolve(dims, &spec.regions, &spec.pieces, &mut problems);

        // Pieces and geometry.
        let mut pieces = Vec::with_capacity(spec.pieces.len());
        let mut powers: Vec<Vec<Power>> = Vec::with_capacity(spec.pieces.len());
        let mut geometries = Vec::with_capacity(spec.pieces.len());
        let mut full_geometries = Vec::with_capacity(spec.pieces.len());
        for (i, p) in spec.pieces.iter().enumerate() {
            let geometry = match betza::parse(&p.betza) {
                Ok(g) => g,
                Err(e) => {
                    problems.push(format!("piece {:?}: field `betza`: {e}", p.name));
                    betza::Geometry::default()
                }
            };
            // A grasshopper lands right behind its screen, so a range has no agreed meaning for
            // it; a cannon hop needs a line with room for a screen (`pR4`, not `pW`).
            if let Some(leg) = geometry.components.iter().filter(|c| c.legs.len() == 1).map(|c| &c.legs[0]).find(|l| {
                l.atoms.iter().any(|a| {
                    (a.jump == betza::Jump::Grasshopper && a.max_steps != 0)
                        || (a.jump == betza::Jump::Hop && a.max_steps == 1)
                })
            }) {
                problems.push(format!(
                    "piece {:?}: field `betza`: {:?} is a grasshopper with a range or a cannon on a leaper, \
                     which the move generator does not support (write a rider: pR, pR4, gQ)",
                    p.name, leg.text
                ));
            }
            let mut concluded = Vec::new();
            for power in &p.powers {
                match power.conclude() {
                    Ok(mut c) => {
                        if let Power::GeneralJump { stoppers, .. } = &mut c {
                            for t in &stoppers.tokens {
                                match lookup(t) {
                                    Some(kind) => stoppers.kinds.push(kind),
                                    None => problems.push(format!(
                                        "piece {:?}: field `powers`: general_jump: unknown stopper token {t:?}",
                                        p.name
                                    )),
                                }
                            }
                        }
                        concluded.push(c)
                    }
                    Err(e) => problems.push(format!("piece {:?}: field `powers`: {e}", p.name)),
                }
            }
            powers.push(concluded);
            let mut promotes_to = Vec::new();
            for t in &p.promotes_to {
                match lookup(t) {
                    Some(pt) => promotes_to.push(pt),
                    None => problems.push(format!("piece {:?}: field `promotes_to`: unknown token {t:?}", p.name)),
                }
            }
            let atoms: Vec<Atom> = geometry.atoms().copied().collect();
            // A lame leap's path is kept as at most three squares (`tables::Leap::via`): a pawn's
            // four-square step (Double Chess) passes three.
            let long_lame = |a: &Atom| {
                let (x, y) = (i32::from(a.dx).abs(), i32::from(a.dy).abs());
                a.jump == Jump::Lame && a.max_steps == 1 && (x == 0 || y == 0 || x == y) && x.max(y) > 4
            };
            if atoms.iter().any(long_lame) {
                problems.push(format!(
                    "piece {:?}: field `betza`: a lame leap may pass at most three squares (at most four long)",
                    p.name
                ));
            }
            let regional = &piece_regions[i];
            // Regions act on the move tables only: moves from powers and multi-leg components
            // would escape a confinement, and en passant reads the tables backwards.
            if !regional.is_empty() && (!p.powers.is_empty() || geometry.multi_leg().next().is_some() || p.en_passant) {
                problems.push(format!(
                    "piece {:?}: fields `confined_to`/`region_moves` are not supported with powers, multi-leg \
                     Betza moves or `en_passant`",
                    p.name
                ));
            }
            let all_atoms: Vec<Atom> =
                atoms.iter().chain(regional.extra.iter().flat_map(|(_, extra)| extra)).copied().collect();
            // Multi-leg components capture in every Chushin piece that has them; `legs` is exact
            // about which legs capture, this flag only has to be conservative.
            let captures = atoms.iter().any(|a| a.modality.captures)
                || !p.powers.is_empty()
                || geometry.multi_leg().next().is_some();
            // A royal leap or a roam may land where a Betza move does (Jupiter's Royalist, the
            // Emperor King's own king steps).
            let royal_leaper = p.powers.iter().any(|w| matches!(w, PowerSpec::RoyalLeap | PowerSpec::RoamUnguarded));
            let needs_dedup = royal_leaper
                || all_atoms.iter().enumerate().any(|(i, a)| {
                    all_atoms[..i].iter().any(|b| {
                        // Same direction (one a positive multiple of the other) can reach the same square.
                        let cross = a.dx as i32 * b.dy as i32 - a.dy as i32 * b.dx as i32;
                        let same_way = a.dx as i32 * b.dx as i32 + a.dy as i32 * b.dy as i32 > 0;
                        cross == 0 && same_way
                    })
                });
            if p.en_passant && spec.initial_move_ranks.is_empty() {
                problems.push(format!(
                    "piece {:?}: field `en_passant` needs the variant field `initial_move_ranks`",
                    p.name
                ));
            }
            let promotion_upgrade =
                p.promotion_upgrade.as_ref().and_then(|u| match (lookup(&u.present), lookup(&u.becomes)) {
                    (Some(a), Some(b)) => Some((a, b)),
                    _ => {
                        problems.push(format!("piece {:?}: field `promotion_upgrade`: unknown token in {u:?}", p.name));
                        None
                    }
                });
            if promotion_upgrade.is_some() && p.promotes_to.len() != 1 {
                problems.push(format!("piece {:?}: field `promotion_upgrade` needs exactly one `promotes_to`", p.name));
            }
            pieces.push(PieceDef {
                promotion_upgrade,
                name: p.name.clone(),
                token: p.token.to_ascii_uppercase(),
                betza: p.betza.clone(),
                royal: p.royal,
                promotes_to,
                value: p.value,
                en_passant: p.en_passant,
                captures,
                needs_dedup,
            });
            geometries.push(atoms);
            full_geometries.push(geometry);
        }
        let legs = match LegTries::compile(dims, &full_geometries) {
            Ok(legs) => legs,
            Err(errors) => {
                for (i, e) in errors {
                    problems.push(format!("piece {:?}: field `betza`: {e}", spec.pieces[i].name));
                }
                LegTries::default()
            }
        };
        if spec.initial_move_ranks.iter().any(|&r| r == 0 || r > spec.height) {
            problems.push(format!("field `initial_move_ranks`: ranks must be within 1..={}", spec.height));
        }
        if spec.promotion.zone_ranks > spec.height {
            problems.push("field `promotion.zone_ranks` is larger than the board".into());
        }

        let castling = spec.castling.as_ref().and_then(|c| Castling::conclude(c, spec.width, lookup, &mut problems));
        // In UCI notation a first-turn swap is written from-to onto one's own man, which is how
        // a king-takes-rook castling is written too: the two together would be ambiguous.
        if spec.first_turn_swap != super::FirstTurnSwap::None && castling.is_some() {
            problems.push("field `first_turn_swap`: not supported together with castling (remove castling)".into());
        }
        let any_powers = powers.iter().any(|p| !p.is_empty()) || !legs.is_empty();
        let protean = spec.protean.as_ref().and_then(|p| p.conclude(&spec, any_powers, &mut problems));

        let extinction = spec.victory.extinction.as_ref().map(|e| {
            let types = if e.pieces.iter().any(|t| t == "*") {
                None
            } else {
                let mut types = Vec::new();
                for t in &e.pieces {
                    match lookup(t) {
                        Some(pt) => types.push(pt),
                        None => problems.push(format!("field `victory.extinction.pieces`: unknown token {t:?}")),
                    }
                }
                Some(types)
            };
            Extinction { types, count: e.count, opponent_count: e.opponent_count, claim: e.claim, value: e.value }
        });
        // Line captures remove up to one piece per square of a line; moves hold a fixed number.
        let longest_line = spec.width.max(spec.height) as usize;
        let line_capturer = powers
            .iter()
            .flatten()
            .any(|p| matches!(p, Power::Approach { effect: ApproachEffect::CaptureLine, .. } | Power::LongLeap { .. }));
        if line_capturer && longest_line > MAX_EXTRA_CAPTURES + 2 {
            problems.push(format!(
                "fields `width`/`height`: line-capturing powers support boards up to {} squares wide",
                MAX_EXTRA_CAPTURES + 2
            ));
        }
        let passers: Vec<bool> = powers.iter().map(|ps| ps.iter().any(|p| matches!(p, Power::Pass))).collect();
        match (spec.pass, passers.iter().any(|&p| p)) {
            (PassRule::None, true) => {
                problems.push("field `pass`: a piece has the `pass` power but the variant's `pass` is \"none\"".into())
            }
            (PassRule::OnePerPosition, false) => {
                problems.push("field `pass`: \"one_per_position\" needs a piece with the `pass` power".into())
            }
            (PassRule::PerPieceNoDoublePass, true) => problems.push(
                "field `pass`: \"per_piece_no_double_pass\" takes its passes from the pieces' XBetza \
                 (`mabK`), not from the `pass` power"
                    .into(),
            ),
            _ => {}
        }
        // Relays lend table moves and read the recipient's table moves; neither walks legs, so
        // the combination would lose moves silently.
        if !legs.is_empty() {
            let relayer = spec
                .pieces
                .iter()
                .zip(&powers)
                .find(|(_, ps)| ps.iter().any(|p| matches!(p, Power::Relay { .. } | Power::Teleport)));
            if let Some((p, _)) = relayer {
                problems.push(format!(
                    "piece {:?}: field `powers`: relay and teleport powers are not supported in a variant \
                     with multi-leg XBetza moves (relayed moves do not walk legs)",
                    p.name
                ));
            }
        }
        let setup = match &spec.setup {
            None => None,
            Some(setup) => match setup.conclude(dims, lookup) {
                Ok(s) => Some(s),
                Err(p) => {
                    problems.extend(p);
                    None
                }
            },
        };
        let drops = spec.drops.as_ref().and_then(|d| d.conclude(&spec, lookup, &mut problems));
        let (geo, cells) = topology::conclude(&spec, &geometries, &full_geometries, &mut problems);
        let (explosion, rebirth) =
            super::capture_effects::conclude(&spec, geo, dims, &pieces, &powers, &lookup, &mut problems);
        let neutral_token = super::neutral_token::conclude(&spec, dims, &geometries, !legs.is_empty(), &mut problems);
        super::must_mate::check(&spec, &mut problems);
        if !problems.is_empty() {
            return Err(problems);
        }

        let tables = build_tables(geo, cells.as_ref(), &geometries, &piece_regions);
        topology::mark_duplicates(geo, &tables, &mut pieces);
        // Moves that depend on the square (regions) break the reverse lookups of attack tests.
        let regional = piece_regions.iter().any(|r| !r.is_empty());
        let nsq = dims.squares();
        let zobrist = Zobrist::new(pieces.len(), nsq, setup.as_ref().map_or(0, |s| s.plies.len()), drops.is_some());
        let resolved = toml::to_string(&spec).unwrap_or_default();
        let en_passant = pieces.iter().any(|p| p.en_passant);
        let relayers = (0..pieces.len())
            .filter(|&i| powers[i].iter().any(|p| matches!(p, Power::Relay { .. } | Power::Teleport)))
            .map(|i| PieceType(i as u8))
            .collect();
        // Multi-leg moves attack too, and only the move generator knows them: attack tests must
        // ask it, as they do for powers.
        let has_powers = powers.iter().any(|p| !p.is_empty()) || !legs.is_empty();
        let immobilizers = (0..pieces.len())
            .filter(|&i| powers[i].iter().any(|p| matches!(p, Power::Immobilize { .. })))
            .map(|i| PieceType(i as u8))
            .collect();
        let capture_atoms = || geometries.iter().flatten().filter(|a| a.modality.captures);
        // The flying general pins along files that the pin shortcut does not look at.
        // A neutral token blocks lines and moves with every move, which the shortcut's pin
        // test and the reverse tables do not see (`movegen::neutral_token`).
        let simple_attacks = !has_powers
            && !regional
            && !spec.flying_general
            && spec.neutral_token.is_none()
            && capture_atoms().all(|a| a.jump == Jump::Free);
        let coords =
            (0..nsq).map(|i| (dims.file(Square(i as u16)) as i16, dims.rank(Square(i as u16)) as i16)).collect();
        let attack_tables = if simple_attacks { AttackTables::build(geo, cells.as_ref(), &geometries) } else { None };
        let mut line_dirs: Vec<(i32, i32)> = Vec::new();
        for a in capture_atoms().filter(|a| a.max_steps != 1) {
            for d in [(a.dx as i32, a.dy as i32), (-(a.dx as i32), -(a.dy as i32))] {
                if !line_dirs.contains(&d) {
                    line_dirs.push(d);
                }
            }
        }
        let rides_to_capture =
            geometries.iter().map(|atoms| atoms.iter().any(|a| a.modality.captures && a.max_steps != 1)).collect();
        let royal = pieces.iter().map(|p| p.royal).collect();
        let mut promoted = vec![false; pieces.len()];
        for def in &pieces {
            for t in def.promotes_to.iter().chain(def.promotion_upgrade.iter().map(|(_, becomes)| becomes)) {
                promoted[t.index()] = true;
            }
        }
        let mut mirror_safe = mirror_safe_types(&spec.pieces, &pieces);
        for (safe, r) in mirror_safe.iter_mut().zip(&piece_regions) {
            let masks = r.confine.iter().chain(r.extra.iter().map(|(m, _)| m));
            *safe = *safe && masks.into_iter().all(|m| regions::mirror_symmetric(dims, m));
        }
        let mut mirror_type = super::mirror::mirror_types(&spec, &pieces);
        // A grid that is not its own mirror image makes no position mirror-safe.
        if cells.as_ref().is_some_and(|c| !c.mirror_symmetric(dims)) {
            mirror_safe.iter_mut().for_each(|s| *s = false);
            mirror_type.iter_mut().for_each(|t| *t = None);
        }
        // Royalty by position (ICS wild 9: the first king by file) is not its own mirror image.
        // Circe's rebirth squares are not their own mirror image (the queen's d1).
        // So is a neutral token's start square off the middle file (d4).
        if spec.royal_choice != super::RoyalChoice::All || rebirth.is_some() || neutral_token.is_some() {
            mirror_safe.iter_mut().for_each(|s| *s = false);
            mirror_type.iter_mut().for_each(|t| *t = None);
        }
        // Drops that name a file (castling rights from a dropped king) or a lopsided drop region
        // are not their own mirror image either.
        if drops.as_ref().is_some_and(|d| !d.mirror_symmetric) {
            mirror_safe.iter_mut().for_each(|s| *s = false);
            mirror_type.iter_mut().for_each(|t| *t = None);
        }
        let extended_strings = spec.notation == super::NotationStyle::Uci || castling.is_some() || en_passant;
        let turns = super::turns::conclude(spec.turns.as_ref(), spec.victory.royal, extended_strings, &mut problems);
        if !problems.is_empty() {
            return Err(problems);
        }
        let turn = turn_rules(&spec.pieces, &powers);
        let mut variant = Variant {
            legs,
            mirror_safe,
            mirror_type,
            attack_tables,
            line_dirs,
            rides_to_capture,
            royal,
            turn,
            promoted,
            immobilizers,
            passers,
            simple_attacks,
            coords,
            powers,
            relayers,
            has_powers,
            regional,
            geometry: geo,
            cells,
            setup,
            drops,
            name: spec.name.clone(),
            dims,
            pieces,
            start: neutral_token.as_ref().map_or_else(|| spec.start.clone(), |(_, start)| start.clone()),
            notation: spec.notation,
            rules: Rules {
                promotion: spec.promotion.clone(),
                castling,
                initial_move_ranks: spec.initial_move_ranks.clone(),
                en_passant,
                royal: spec.victory.royal,
                stalemate: spec.victory.stalemate,
                checkmate: spec.victory.checkmate,
                bare: spec.victory.bare,
                extinction,
                repetition: spec.repetition,
                forced_capture: spec.forced_capture,
                pass: spec.pass,
                halfmove_draw: spec.halfmove_draw,
                move_cap: spec.move_cap,
                flying_general: spec.flying_general,
                capture: spec.capture,
                checking: spec.checking,
                must_mate: spec.must_mate,
                royal_choice: spec.royal_choice,
                first_turn_swap: spec.first_turn_swap,
                protean,
                explosion,
                rebirth,
                turns,
                neutral_token: neutral_token.map(|(t, _)| t),
            },
            hash: fnv1a(resolved.as_bytes()),
            spec,
            start_counts: Vec::new(),
            tables,
            zobrist,
        };
        // The start position must parse; its piece counts bound Grand-style promotions.
        match variant.parse_position(&variant.start) {
            Ok(raw) => variant.start_counts = variant.piece_counts_of(&raw.board),
            Err(e) => return Err(vec![format!("field `start`: {e}")]),
        }
        if let Some(setup) = &variant.setup {
            if let Err(e) = variant.parse_position(&setup.fixed) {
                return Err(vec![format!("field `setup.fixed`: {e}")]);
            }
        }
        super::start_generator::check(&variant)?;
        Ok(variant)
    }
}

/// The piece keys and latent powers that the turn procedure reads (jupiter.md §5.3-§5.6).
fn turn_rules(specs: &[PieceSpec], powers: &[Vec<Power>]) -> TurnRules {
    let types_with = |f: &dyn Fn(&Power) -> bool| {
        (0..powers.len()).filter(|&i| powers[i].iter().any(f)).map(|i| PieceType(i as u8)).collect::<Vec<_>>()
    };
    let doublers = types_with(&|p| matches!(p, Power::Double { .. }));
    let poisoners = types_with(&|p| matches!(p, Power::PoisonSight { .. }));
    let reproducers = (0..specs.len())
        .filter(|&i| specs[i].powers.iter().any(|p| matches!(p, PowerSpec::Reproduce { .. })))
        .map(|i| PieceType(i as u8))
        .collect();
    let poisonous: Vec<bool> = specs.iter().map(|p| p.poisonous).collect();
    let burns: Vec<bool> = specs.iter().map(|p| p.burns).collect();
    let dies_when_capturing: Vec<bool> = specs.iter().map(|p| p.dies_when_capturing).collect();
    let listed = |flags: &[bool]| (0..flags.len()).filter(|&i| flags[i]).map(|i| PieceType(i as u8)).collect();
    TurnRules {
        burner_types: listed(&burns),
        any_burner: burns.iter().any(|&b| b),
        any_poison: !poisoners.is_empty() || poisonous.iter().any(|&b| b),
        any_kamikaze: dies_when_capturing.iter().any(|&b| b),
        doublers,
        poisoners,
        reproducers,
        poisonous,
        burns,
        dies_when_capturing,
    }
}

/// A [`VariantSpec`] that does not make a variant: every problem found, each naming its field
/// (`field `start`: ...`, `piece "king": field `betza`: ...`), never only the first.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", list_problems(.problems))]
pub struct BuildError {
    pub problems: Vec<String>,
}

/// One problem as it is, several one per line (the same layout as a variant file's error,
/// without the file name: a spec built in memory has none).
fn list_problems(problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        _ => {
            let lines: Vec<String> = problems.iter().map(|p| format!("\n  {p}")).collect();
            format!("{} problems:{}", problems.len(), lines.concat())
        }
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Per piece type: it and every type it can become (promotion, promotion upgrade) move
/// left-right symmetrically.
pub(crate) fn mirror_safe_types(specs: &[PieceSpec], pieces: &[PieceDef]) -> Vec<bool> {
    let n = pieces.len();
    let own: Vec<bool> =
        specs.iter().map(|p| betza_symmetric(&p.betza) && p.powers.iter().all(power_symmetric)).collect();
    let becomes = |t: usize| -> Vec<usize> {
        let def = &pieces[t];
        let mut out: Vec<usize> = def.promotes_to.iter().map(|p| p.index()).collect();
        if let Some((_, b)) = def.promotion_upgrade {
            out.push(b.index());
        }
        out
    };
    (0..n)
        .map(|t| {
            let mut seen = vec![false; n];
            let mut stack = vec![t];
            while let Some(u) = stack.pop() {
                if std::mem::replace(&mut seen[u], true) {
                    continue;
                }
                if !own[u] {
                    return false;
                }
                stack.extend(becomes(u));
            }
            true
        })
        .collect()
}
