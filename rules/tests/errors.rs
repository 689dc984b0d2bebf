//! Bad input gets a clear, one-line error naming the field or character at fault.

use fairyzero_rules::{Position, Variant, VariantSpec};

fn fen_error(variant: &str, fen: &str) -> String {
    let v = Variant::load(variant).unwrap();
    Position::from_fen(v, fen).expect_err("the position must be refused").to_string()
}

fn variant_error(text: &str) -> String {
    match Variant::from_toml("test.toml", text, None) {
        Ok(_) => panic!("the variant must be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_token_is_named_with_its_character() {
    let e = fen_error("scirocco", "(xx)9/10/10/10/10/10/10/10/10/K8k w");
    assert!(e.contains("unknown piece token \"xx\"") && e.contains("character 1"), "{e}");
    let e = fen_error("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1");
    assert!(e.contains("\"X\"") && e.contains("character 43"), "{e}");
}

#[test]
fn wrong_rank_length_and_count_are_refused() {
    let e = fen_error("scirocco", "9k/10/10/10/10/10/10/10/10/K8 w");
    assert!(e.contains("rank 1 describes 9 files, the board has 10"), "{e}");
    let e = fen_error("scirocco", "9k/10/10/10/10/10/10/10/K9 w");
    assert!(e.contains("9 ranks"), "{e}");
    let e = fen_error("chess", "8/8/8/8/8/8/8/8 x - - 0 1");
    assert!(e.contains("side to move"), "{e}");
    let e = fen_error("typhoon", "11(k/12/12/12/12/12/12/12/12/12/12/K11 w");
    assert!(e.contains("'(' without a closing ')'"), "{e}");
    let e = fen_error("scirocco", "9k/10/10/10/10/10/10/10/10/(De)9 w");
    assert!(e.contains("mixes upper and lower case") || e.contains("unknown piece token"), "{e}");
}

#[test]
fn illegal_and_malformed_moves_are_refused() {
    let mut pos = Position::start(Variant::load("scirocco").unwrap());
    let e = pos.parse_move("a3a5").unwrap_err().to_string();
    assert!(e.contains("not a legal move"), "{e}");
    let e = pos.parse_move("a3").unwrap_err().to_string();
    assert!(e.contains("destination square"), "{e}");
    let e = pos.parse_move("a3a4q").unwrap_err().to_string();
    assert!(e.contains("character 5"), "{e}");
    let e = pos.parse_move("z9a4").unwrap_err().to_string();
    assert!(e.contains("origin square"), "{e}");
    let mut chess = Position::start(Variant::load("chess").unwrap());
    assert!(chess.parse_move("e2e5").is_err());
    assert!(chess.parse_move("e7e8x").is_err());
    assert!(chess.play_moves("e2e4,e7e5,g1f3").is_ok());
}

#[test]
fn malformed_variant_files_name_the_field() {
    let base = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\n";
    let piece = "[[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n";
    // A Betza error names the character.
    let e = variant_error(&format!("{base}{}", piece.replace("betza = \"K\"", "betza = \"KX\"")));
    assert!(e.contains("test.toml") && e.contains("`betza`") && e.contains("'X'"), "{e}");
    // Unknown keys are errors.
    let e = variant_error(&format!("{base}colour = 3\n{piece}"));
    assert!(e.contains("unknown field `colour`"), "{e}");
    let e = variant_error(&format!("{base}{}", piece.replace("royal = true", "royal = true\nroyl = 1")));
    assert!(e.contains("unknown field `royl`"), "{e}");
    // Unknown powers are refused loudly, never ignored.
    let e = variant_error(&format!("{base}{piece}powers = [{{ kind = \"levitate\" }}]\n"));
    assert!(e.contains("unknown variant `levitate`"), "{e}");
    let e = variant_error(&format!("{base}{piece}powers = [{{ kind = \"igui\", targets = \"K\", range = 2 }}]\n"));
    assert!(e.contains("range"), "{e}");
    // A grasshopper with a range or a cannon on a leaper has no agreed meaning: refused.
    for hopper in ["KgB2", "KpW"] {
        let e = variant_error(&format!("{base}{}", piece.replace("betza = \"K\"", &format!("betza = \"{hopper}\""))));
        assert!(e.contains("grasshopper with a range or a cannon on a leaper"), "{hopper}: {e}");
    }
    for supported in ["KpR", "KgQ", "KpR3"] {
        let text = format!("{base}{}", piece.replace("betza = \"K\"", &format!("betza = \"{supported}\"")));
        assert!(Variant::from_toml("test.toml", &text, None).is_ok(), "{supported}");
    }
    // Promotion targets and the start position are checked.
    let e = variant_error(&format!("{base}{}", piece.replace("royal = true", "royal = true\npromotes_to = [\"Q\"]")));
    assert!(e.contains("promotes_to") && e.contains("\"Q\""), "{e}");
    let e = variant_error(&format!("{}{piece}", base.replace("4k/5/5/5/K4 w", "4q/5/5/5/K4 w")));
    assert!(e.contains("field `start`") && e.contains("\"q\""), "{e}");
    // Every problem is listed, not only the first.
    let two =
        piece.replace("betza = \"K\"", "betza = \"Y\"").replace("royal = true", "royal = true\npromotes_to = [\"Q\"]");
    let e = variant_error(&format!("{base}{two}"));
    assert!(e.contains("betza") && e.contains("promotes_to"), "{e}");
}

#[test]
fn extends_overrides_in_three_lines() {
    let v = Variant::from_toml("x.toml", "name = \"x\"\nextends = \"chess\"\n[victory]\nstalemate = \"loss\"\n", None)
        .unwrap();
    assert_eq!(v.rules.stalemate, fairyzero_rules::variant::GameValue::Loss);
    assert_eq!(v.piece_count(), 6);
    let e = Variant::load("no-such-variant").unwrap_err().to_string();
    assert!(e.contains("unknown variant"), "{e}");
}

/// docs/variants.md: every problem of a file at once, each naming the file and its field (and
/// the character, for a Betza string), even when serde would stop at the first.
#[test]
fn every_problem_of_a_variant_file_is_reported_at_once() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("three-problems.toml");
    let text = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\ncolour = 1\nflavour = 2\n\
                [[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"KX\"\nroyal = true\n";
    std::fs::write(&path, text).unwrap();
    let e = Variant::load(path.to_str().unwrap()).unwrap_err().to_string();
    assert!(e.contains("3 problems"), "{e}");
    let file = path.display().to_string();
    for wanted in [
        format!("{file}: field `colour`: unknown field `colour`"),
        format!("{file}: field `flavour`: unknown field `flavour`"),
        format!("{file}: piece \"king\": field `betza`: in Betza string \"KX\", character 'X' at position 2"),
    ] {
        assert!(e.contains(&wanted), "missing {wanted:?} in {e}");
    }

    // Wrong types, nested keys and powers are listed with their paths too.
    let text = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\n[promotion]\nzone_ranks = \"two\"\n\
                tigger = 1\n[[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = \"yes\"\n\
                powers = [{ kind = \"levitate\" }]\n[victory]\nroyal = \"nope\"\nstalemate = 1\n";
    let e = variant_error(text);
    for wanted in [
        "field `promotion.zone_ranks`: invalid type",
        "field `promotion.tigger`: unknown field",
        "piece \"king\": field `royal`: invalid type",
        "piece \"king\": field `powers[0]`: unknown variant `levitate`",
        "field `victory.royal`: unknown variant `nope`",
        "field `victory.stalemate`: invalid type",
    ] {
        assert!(e.contains(wanted), "missing {wanted:?} in {e}");
    }
    // A missing required field ends the list: nothing can stand in for it.
    let e = variant_error("name = \"t\"\nheight = 5\ncolour = 1\n");
    assert!(e.contains("field `colour`") && e.contains("missing field `width`"), "{e}");
}

/// `Variant::build` on a spec made in memory (no file): one typed error listing every problem.
#[test]
fn a_spec_built_in_memory_lists_every_problem() {
    let text = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\n\
                [[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"KX\"\nroyal = true\n\
                [[piece]]\nname = \"queen\"\ntoken = \"k\"\nbetza = \"Q\"\n";
    let spec: VariantSpec = toml::from_str(text).unwrap();
    let e = Variant::build(spec).expect_err("the spec must be refused");
    assert_eq!(e.problems.len(), 2, "{e}");
    assert!(e.problems[0].starts_with("piece \"queen\": field `token` \"k\" is used twice"), "{e}");
    assert!(e.problems[1].starts_with("piece \"king\": field `betza`: in Betza string \"KX\""), "{e}");
    assert!(e.to_string().starts_with("2 problems:\n  piece \"queen\""), "{e}");
}

#[test]
fn a_latent_power_with_a_bad_sight_is_refused_by_field() {
    // Every power kind has its module now (the last two, `double` and `poison_sight`, are
    // latent); their `sight` must be W/F-based lines.
    let base = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\n";
    let piece = "[[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n";
    let e = variant_error(&format!("{base}{piece}powers = [{{ kind = \"double\", sight = \"N\" }}]\n"));
    assert!(e.contains("test.toml") && e.contains("field `sight`"), "{e}");
}

#[test]
fn the_partial_2009_jupiter_rules_are_refused_with_the_reason() {
    let e = Variant::load("jupiter-2009-partial").map(|_| ()).expect_err("Appendix A is out of scope").to_string();
    assert!(e.contains("jupiter-2009-partial") && e.contains("Appendix A") && e.contains("out of scope"), "{e}");
}

#[test]
fn multi_leg_xbetza_loads_and_its_mistakes_name_the_character() {
    let base = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"4k/5/5/5/K4 w\"\n";
    let with_betza =
        |betza: &str| format!("{base}[[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"{betza}\"\nroyal = true\n");
    // What Chushin Shogi writes loads.
    for betza in ["KcafR", "KNADcaKmcabK", "(paf)2cBmcB(a)2KmabK", "QympacabQ(a)2KmcabK(a)2mpacabK", "jQcabK", "fsafW"]
    {
        let loaded = Variant::from_toml("test.toml", &with_betza(betza), None);
        assert!(loaded.is_ok(), "{betza}: {}", loaded.err().map(|e| e.to_string()).unwrap_or_default());
    }
    let cases: &[(&str, &str, &str)] = &[
        // A group needs a repeat count.
        ("(paf)cB", "character 'c' at position 6", "needs a repeat count 1..=9"),
        ("((a)2)2K", "character '(' at position 2", "groups do not nest"),
        // A continuation leg turns only straight on or back.
        ("fasW", "character 's' at position 3", "direction 's' on a continuation leg"),
        ("mafsW", "character 'f' at position 3", "direction 'fs' on a continuation leg"),
        ("gafK", "character 'g' at position 1", "'g' is not supported in a multi-leg component"),
        // A group is not a component by itself.
        ("(a)2", "character '(' at position 1", "a group must be followed by the rest of its component"),
        ("K(a)2", "character '(' at position 2", "a group must be followed by the rest of its component"),
        ("capR", "character 'p' at position 3", "'p' on the final leg"),
        ("jK", "character 'j' at position 1", "'j' skips the first square of a slide"),
    ];
    for &(betza, at, why) in cases {
        let e = variant_error(&with_betza(betza));
        assert!(e.contains("test.toml") && e.contains("field `betza`"), "{betza}: {e}");
        assert!(e.contains(at) && e.contains(why), "{betza}: {e}");
    }
}

#[test]
fn relays_next_to_multi_leg_moves_are_refused() {
    let text = "name = \"t\"\nwidth = 5\nheight = 5\nstart = \"2k2/5/5/1L1R1/2K2 w\"\npass = \"none\"\n\
        [[piece]]\nname = \"king\"\ntoken = \"K\"\nbetza = \"K\"\nroyal = true\n\
        [[piece]]\nname = \"lion\"\ntoken = \"L\"\nbetza = \"KcaK\"\n\
        [[piece]]\nname = \"relayer\"\ntoken = \"R\"\nbetza = \"W\"\npowers = [{ kind = \"relay\", reach = \"adjacent\", grants = \"W\", landing = \"any\" }]\n";
    let e = variant_error(text);
    assert!(e.contains("\"relayer\"") && e.contains("field `powers`") && e.contains("multi-leg"), "{e}");
}
