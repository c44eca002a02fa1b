use super::*;
use tengen_core::{BoardSize, Rules};

fn play(game: &mut Game, vertex: &str) {
    let mv = game.size().parse_gtp(vertex).unwrap();
    game.play(mv).unwrap();
}

/// Games where the played move is always a capture when one is there,
/// and otherwise next to the last move: the fit must learn both.
fn games() -> Vec<Game> {
    let mut out = Vec::new();
    for shift in 0..6 {
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        let cols = ["A", "B", "C", "D", "E", "F", "G", "H", "J"];
        // Black walks along a row; White answers beside it.
        for step in 0..4 {
            let col = cols[step + shift % 3];
            let row = 2 + (shift % 4) * 2;
            play(&mut game, &format!("{col}{row}"));
            play(&mut game, &format!("{col}{}", row + 1));
        }
        out.push(game);
    }
    out
}

#[test]
fn the_fit_raises_the_likelihood_and_favours_what_was_played() {
    let games = games();
    let options = MoveModelOptions {
        min_wins: 1,
        iterations: 8,
        test_every: 0,
    };
    let (model, report) = fit_move_model(&games, &options, &mut |_| {});
    assert!(report.train_positions > 20, "{report:?}");
    let ll = &report.train_log_likelihood;
    for pair in ll.windows(2) {
        assert!(pair[1] >= pair[0] - 1e-9, "MM never lowers it: {ll:?}");
    }
    // Uniform choice would give -ln(candidates) ≈ -4.3 on 9×9.
    assert!(ll[ll.len() - 1] > -3.0, "{ll:?}");
    // Every move was played next to the last one: distance 2 (a
    // neighbour) is stronger than far away.
    let text = model.to_text();
    let gamma = |key: &str| -> f32 {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert!(gamma("distance 1 ") > 2.0 * gamma("distance 0 "), "{text}");
    // And the model reads back.
    assert_eq!(MoveModel::parse(&text).unwrap().to_text(), text);
}

#[test]
fn a_labelled_position_teaches_its_last_move_only() {
    let games = games();
    let options = MoveModelOptions {
        min_wins: 1,
        iterations: 4,
        test_every: 0,
    };
    let (_, whole) = fit_move_model(&games, &options, &mut |_| {});
    let records: Vec<FitRecord> = games.iter().cloned().map(FitRecord::Position).collect();
    let (_, last_only) = fit_move_model_to(&records, &options, &mut |_| {});
    assert_eq!(whole.train_positions, 8 * games.len());
    assert_eq!(last_only.train_positions, games.len());
    // The position before the last move is the game's, so the last
    // move's candidates are the same as in the whole game's last
    // position.
    let last_positions: Vec<(Game, Point)> = games
        .iter()
        .map(|g| positions_of(g).pop().unwrap())
        .collect();
    let candidates_there: u64 = last_positions
        .iter()
        .map(|(g, _)| {
            let mut out = Vec::new();
            candidates(g, g.to_move(), &mut out);
            out.len() as u64
        })
        .sum();
    assert_eq!(last_only.train_candidates, candidates_there);
}

/// The games as policy records with `share` on the move played and the
/// rest on the point after it in the candidate list.
fn policy_records(games: &[Game], share: f32) -> Vec<FitRecord> {
    games
        .iter()
        .map(|game| {
            let policies = turns_of(game)
                .into_iter()
                .map(|(before, _, action)| match action {
                    Action::Move(Move::Play(point)) => {
                        let mut others = Vec::new();
                        candidates(&before, before.to_move(), &mut others);
                        let other = others.iter().copied().find(|&p| p != point).unwrap();
                        Some(vec![
                            (Move::Play(point), share),
                            (Move::Play(other), 1.0 - share),
                        ])
                    }
                    _ => None,
                })
                .collect();
            FitRecord::Policy(PolicyRecord {
                game: game.clone(),
                policies,
            })
        })
        .collect()
}

#[test]
fn a_policy_all_on_the_played_move_fits_as_the_game_does() {
    let games = games();
    let options = MoveModelOptions {
        min_wins: 1,
        iterations: 4,
        test_every: 0,
    };
    let (from_games, games_report) = fit_move_model(&games, &options, &mut |_| {});
    let records = policy_records(&games, 1.0);
    let (from_policies, policies_report) = fit_move_model_to(&records, &options, &mut |_| {});
    assert_eq!(
        games_report.train_positions,
        policies_report.train_positions
    );
    assert_eq!(
        games_report.train_log_likelihood,
        policies_report.train_log_likelihood
    );
    assert_eq!(from_games.to_text(), from_policies.to_text());
}

#[test]
fn shared_wins_are_learned_as_a_distribution() {
    let games = games();
    let options = MoveModelOptions {
        min_wins: 1,
        iterations: 8,
        test_every: 0,
    };
    let (_, sharp) = fit_move_model_to(&policy_records(&games, 1.0), &options, &mut |_| {});
    let (_, split) = fit_move_model_to(&policy_records(&games, 0.5), &options, &mut |_| {});
    assert_eq!(sharp.train_positions, split.train_positions);
    let ll = &split.train_log_likelihood;
    for pair in ll.windows(2) {
        assert!(pair[1] >= pair[0] - 1e-9, "MM never lowers it: {ll:?}");
    }
    // Half the weight on a second move: the cross-entropy is at least
    // the entropy of the split, ln 2, so the best fit is below -ln 2.
    assert!(ll[ll.len() - 1] < -(2f64.ln()) + 1e-9, "{ll:?}");
    assert!(
        ll[ll.len() - 1] < sharp.train_log_likelihood[ll.len() - 1],
        "a split target is harder to predict: {ll:?} against {:?}",
        sharp.train_log_likelihood
    );
}

#[test]
fn predictions_count_ties_fairly() {
    // One position, three candidates of equal strength, one played: a
    // third of a top-1, all of a top-5.
    let data = Competitions {
        tuples: vec![[0; GROUPS]],
        counts: vec![3],
        starts: vec![0, 1],
        targets: vec![(0, 1.0)],
        target_starts: vec![0, 1],
        winners: vec![0],
        candidates: 3,
    };
    let gammas = Gammas::new([1; GROUPS]);
    let (top1, top5) = prediction(&data, &gammas);
    assert!((top1 - 1.0 / 3.0).abs() < 1e-12);
    assert!((top5 - 1.0).abs() < 1e-12);
    assert!((log_likelihood(&data, &gammas) + 3f64.ln()).abs() < 1e-12);
}
