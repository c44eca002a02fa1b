use super::*;
use tengen_core::BoardSize;

#[test]
fn playouts_are_legal_and_keep_the_board_consistent() {
    let policy = PlayoutPolicy::default();
    let mut rng = Rng::new(9);
    let mut scratch = PlayoutScratch::default();
    for (side, games) in [(9, 40), (5, 100), (13, 10), (19, 4)] {
        let size = BoardSize::square(side).unwrap();
        for _ in 0..games {
            let mut board = Board::new(size);
            scratch.reset(&board);
            let mut color = Color::Black;
            let mut last = None;
            let mut passes = 0;
            for _ in 0..3 * size.points_count() {
                match policy.choose(&mut board, color, last, &mut rng, &mut scratch) {
                    Some(p) => {
                        assert!(board.is_legal_simple(p, color), "{board:?} {p:?}");
                        assert!(!board.is_point_an_eye(p, color));
                        board.play_unchecked(p, color);
                        scratch.note_move(&board, p);
                        last = Some(p);
                        passes = 0;
                    }
                    None => {
                        board.pass();
                        last = None;
                        passes += 1;
                    }
                }
                board.check_consistency().unwrap();
                assert!(scratch.tracks_every_atari(&board), "{board:?}");
                if passes == 2 {
                    break;
                }
                color = !color;
            }
        }
    }
}

#[test]
fn playouts_that_replay_learned_replies_stay_legal() {
    let policy = PlayoutPolicy {
        last_good_reply: true,
        ..PlayoutPolicy::default()
    };
    let mut rng = Rng::new(11);
    let mut scratch = PlayoutScratch::default();
    let size = BoardSize::square(9).unwrap();
    let mut replayed = 0;
    for _ in 0..200 {
        let mut board = Board::new(size);
        let mut moves = Vec::new();
        policy.playout(
            &mut board,
            Color::Black,
            None,
            &mut rng,
            300,
            &mut scratch,
            |p, c| moves.push((p, c)),
        );
        board.check_consistency().unwrap();
        // Replay the moves on a fresh board: each was legal and no eye.
        let mut replay = Board::new(size);
        for &(p, c) in &moves {
            assert!(replay.is_legal_simple(p, c), "{replay:?} {p:?}");
            assert!(!replay.is_point_an_eye(p, c));
            replay.play_unchecked(p, c);
        }
        replayed += moves
            .windows(2)
            .filter(|w| scratch.replies.reply(w[1].1, None, w[0].0) == Some(w[1].0))
            .count();
        let winner = if rng.below(2) == 0 {
            Color::Black
        } else {
            Color::White
        };
        policy.learn(&mut scratch, Some(winner));
    }
    // The tables were in use: many moves were a stored reply.
    assert!(replayed > 1000, "{replayed}");
}

#[test]
fn real_eyes_keep_a_group_with_diagonal_eyes_alive() {
    // White's group has two eyes, A3 and B2, and no other liberty. The
    // book's test does not count A3 (an edge point with an empty
    // diagonal), so its playouts let White fill it now and then, and
    // Black captures at B2; with real eyes the group always lives.
    let start = Board::from_ascii(
        ". . . . . . .
         . . . . . . .
         x x x x . . .
         o o o x . . .
         . o o x . . .
         o . o x . . .
         o o o x . . .",
    )
    .unwrap();
    let at = |v: &str| start.size().parse_gtp(v).unwrap().point().unwrap();
    assert!(!start.is_point_an_eye(at("A3"), Color::White));
    assert!(start.is_real_eye(at("A3"), Color::White));
    let mut lost = [0, 0];
    for (k, eyes) in [EyeTest::Book, EyeTest::Real].into_iter().enumerate() {
        let policy = PlayoutPolicy {
            eyes,
            ..PlayoutPolicy::default()
        };
        let mut rng = Rng::new(5);
        let mut scratch = PlayoutScratch::default();
        for _ in 0..200 {
            let mut board = start.clone();
            policy.playout(
                &mut board,
                Color::Black,
                None,
                &mut rng,
                200,
                &mut scratch,
                |p, c| {
                    assert!(
                        eyes == EyeTest::Book || !start.is_real_eye(p, c),
                        "{c:?} filled a real eye at {p:?}"
                    );
                },
            );
            if board.stone(at("C4")) != Some(Color::White) {
                lost[k] += 1;
            }
        }
    }
    assert!(
        lost[0] > 0,
        "the book's eyes lost the group {} times",
        lost[0]
    );
    assert_eq!(lost[1], 0, "real eyes lost the group");
}

/// Plays `games` random playouts of `policy` on 9×9 and counts the moves
/// that were a one-stone self-atari attacking no chain short of
/// liberties.
fn pointless_lone_self_ataris(policy: &PlayoutPolicy, seed: u64, games: usize) -> usize {
    let mut rng = Rng::new(seed);
    let mut scratch = PlayoutScratch::default();
    let size = BoardSize::square(9).unwrap();
    let mut pointless = 0;
    for _ in 0..games {
        let mut board = Board::new(size);
        scratch.reset(&board);
        let (mut color, mut last) = (Color::Black, None);
        for _ in 0..200 {
            let Some(p) = policy.choose(&mut board, color, last, &mut rng, &mut scratch) else {
                break;
            };
            if self_atari_size(&board, p, color) == 1 && !touches_short_enemy(&board, p, color) {
                pointless += 1;
            }
            board.play_unchecked(p, color);
            scratch.note_move(&board, p);
            last = Some(p);
            color = !color;
        }
    }
    pointless
}

#[test]
fn refused_lone_self_ataris_are_never_played() {
    // Random moves only, so that every move goes through the refusal.
    let random_only = PlayoutPolicy {
        capture_percent: 0,
        pattern_percent: 0,
        global_capture_percent: 0,
        self_atari_percent: 0,
        ..PlayoutPolicy::default()
    };
    let refusing = PlayoutPolicy {
        lone_self_atari_refusal: 100,
        ..random_only.clone()
    };
    assert!(pointless_lone_self_ataris(&random_only, 3, 40) > 0);
    assert_eq!(pointless_lone_self_ataris(&refusing, 3, 40), 0);
}

#[test]
fn the_policy_answers_ataris() {
    // The black stone at C4 has one liberty, C3, and running there
    // gives it three.
    let board = Board::from_ascii(
        ". . . . . . .
         . . . . . . .
         . . o . . . .
         . o x o . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .",
    )
    .unwrap();
    let size = board.size();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let policy = PlayoutPolicy {
        capture_percent: 100,
        ..PlayoutPolicy::default()
    };
    let mut rng = Rng::new(1);
    let mut scratch = PlayoutScratch::default();
    scratch.reset(&board);
    // Black, after White's D4: escape to C3.
    for _ in 0..50 {
        let mut b = board.clone();
        let chosen = policy.choose(&mut b, Color::Black, Some(at("D4")), &mut rng, &mut scratch);
        assert_eq!(chosen, Some(at("C3")));
    }
    // White to move after Black's C4 stone: capture it at C3.
    for _ in 0..50 {
        let mut b = board.clone();
        let chosen = policy.choose(&mut b, Color::White, Some(at("C4")), &mut rng, &mut scratch);
        assert_eq!(chosen, Some(at("C3")));
    }
}

#[test]
fn the_policy_fights_chains_left_with_two_liberties() {
    // Black's B4 left White's C4-C3 with two liberties, D4 and D3.
    let board = Board::from_ascii(
        ". . . . . .
         . . x . . .
         . x o . . .
         . x o . . .
         . . x . . .
         . . . . . .",
    )
    .unwrap();
    let size = board.size();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let mut rng = Rng::new(3);
    let mut scratch = PlayoutScratch::default();
    scratch.reset(&board);
    let on = PlayoutPolicy {
        two_liberty_percent: 100,
        ..PlayoutPolicy::default()
    };
    for _ in 0..50 {
        let mut b = board.clone();
        let chosen = on.choose(&mut b, Color::White, Some(at("B4")), &mut rng, &mut scratch);
        assert!(
            chosen == Some(at("D4")) || chosen == Some(at("D3")),
            "{chosen:?}"
        );
    }
    // Off, the shapes and random moves play elsewhere at times.
    let off = PlayoutPolicy::default();
    let elsewhere = (0..200)
        .filter(|_| {
            let mut b = board.clone();
            let chosen = off.choose(&mut b, Color::White, Some(at("B4")), &mut rng, &mut scratch);
            chosen != Some(at("D4")) && chosen != Some(at("D3"))
        })
        .count();
    assert!(elsewhere > 0);
}

#[test]
fn last_good_replies_keep_the_winners_moves_and_forget_the_losers() {
    let size = BoardSize::square(9).unwrap();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let mut replies = LastGoodReplies::default();
    assert_eq!(replies.reply(Color::White, None, at("E5")), None);
    // After Black's E5 in the tree: White C3, Black D4, White passes,
    // Black G7; Black wins.
    replies.start(Color::White, Some(at("E5")));
    for mv in [Some(at("C3")), Some(at("D4")), None, Some(at("G7"))] {
        replies.record(mv);
    }
    replies.learn(Some(Color::Black));
    // Only the winner's moves were stored.
    assert_eq!(replies.reply(Color::White, None, at("E5")), None);
    assert_eq!(replies.reply(Color::Black, None, at("C3")), Some(at("D4")));
    assert_eq!(
        replies.reply(Color::Black, Some(at("E5")), at("C3")),
        Some(at("D4"))
    );
    // A reply after a pass is not stored.
    assert_eq!(replies.reply(Color::Black, None, at("D4")), None);

    // A draw teaches nothing.
    replies.start(Color::Black, Some(at("C3")));
    replies.record(Some(at("F6")));
    replies.learn(None);
    assert_eq!(replies.reply(Color::Black, None, at("C3")), Some(at("D4")));

    // After another first move, the two-move reply is unknown and the
    // one-move reply answers.
    assert_eq!(
        replies.reply(Color::Black, Some(at("A1")), at("C3")),
        Some(at("D4"))
    );

    // Black plays D4 after C3 again and loses: both entries are forgotten.
    replies.start(Color::White, Some(at("E5")));
    replies.record(Some(at("C3")));
    replies.record(Some(at("D4")));
    replies.learn(Some(Color::White));
    assert_eq!(replies.reply(Color::Black, None, at("C3")), None);
    assert_eq!(replies.reply(Color::Black, Some(at("E5")), at("C3")), None);
    // White's winning reply to E5 is stored now.
    assert_eq!(replies.reply(Color::White, None, at("E5")), Some(at("C3")));

    // A loser's move that differs from the stored reply leaves it.
    replies.start(Color::Black, Some(at("E5")));
    replies.record(Some(at("B2")));
    replies.learn(Some(Color::Black));
    assert_eq!(replies.reply(Color::White, None, at("E5")), Some(at("C3")));
}

#[test]
fn the_playout_replays_a_good_reply_while_it_is_playable() {
    let size = BoardSize::square(9).unwrap();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let policy = PlayoutPolicy {
        last_good_reply: true,
        ..PlayoutPolicy::default()
    };
    let mut rng = Rng::new(5);
    let mut scratch = PlayoutScratch::default();
    scratch.replies.start(Color::Black, Some(at("E5")));
    scratch.replies.record(Some(at("C7")));
    scratch.replies.learn(Some(Color::Black));

    let mut board = Board::new(size);
    board.play_unchecked(at("E5"), Color::White);
    scratch.reset(&board);
    scratch.replies.start(Color::Black, Some(at("E5")));
    for _ in 0..20 {
        let mut b = board.clone();
        let chosen = policy.choose(&mut b, Color::Black, Some(at("E5")), &mut rng, &mut scratch);
        assert_eq!(chosen, Some(at("C7")));
    }
    // Off, or once the point is taken, the reply is not played.
    let off = PlayoutPolicy {
        last_good_reply: false,
        ..PlayoutPolicy::default()
    };
    let chosen: Vec<_> = (0..20)
        .map(|_| {
            off.choose(
                &mut board.clone(),
                Color::Black,
                Some(at("E5")),
                &mut rng,
                &mut scratch,
            )
        })
        .collect();
    assert!(chosen.iter().any(|&p| p != Some(at("C7"))), "{chosen:?}");
    board.play_unchecked(at("C7"), Color::White);
    for _ in 0..20 {
        let chosen = policy.choose(
            &mut board.clone(),
            Color::Black,
            Some(at("E5")),
            &mut rng,
            &mut scratch,
        );
        assert_ne!(chosen, Some(at("C7")));
    }
}

#[test]
fn the_policy_plays_the_vital_point_of_an_eye_space() {
    // White's D1 has closed an eye space of three points, A1-C1, and
    // White's chain has no other liberty: whoever plays B1 decides.
    let board = Board::from_ascii(
        ". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         x x x x x . .
         o o o o x . .
         . . . o x . .",
    )
    .unwrap();
    let size = board.size();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let policy = PlayoutPolicy {
        nakade: true,
        ..PlayoutPolicy::default()
    };
    let mut rng = Rng::new(3);
    let mut scratch = PlayoutScratch::default();
    scratch.reset(&board);
    let mut black_after_d1 = |policy: &PlayoutPolicy| {
        policy.choose(
            &mut board.clone(),
            Color::Black,
            Some(at("D1")),
            &mut rng,
            &mut scratch,
        )
    };
    for _ in 0..50 {
        assert_eq!(black_after_d1(&policy), Some(at("B1")));
    }
    // Without the rule, B1 is one move among many.
    let off = PlayoutPolicy {
        nakade: false,
        ..policy.clone()
    };
    let b1 = (0..50)
        .filter(|_| black_after_d1(&off) == Some(at("B1")))
        .count();
    assert!(b1 < 25, "{b1}");
}

#[test]
fn the_policy_reads_ladders() {
    // Black's C4 has put White's C3 in atari; running at D3 only
    // extends it into a ladder towards the upper right.
    let board = Board::from_ascii(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . x . . . . . .
         . x o . . . . . .
         . . x x . . . . .
         . . . . . . . . .",
    )
    .unwrap();
    let size = board.size();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let mut scratch = PlayoutScratch::default();
    scratch.reset(&board);
    tactical_replies(&board, Color::White, at("C4"), &mut scratch);
    assert_eq!(scratch.candidates, vec![]);
    // Black captures it when White plays elsewhere.
    scratch.atari_moves(&board, Color::Black);
    assert_eq!(scratch.candidates, vec![at("D3")]);

    // With a white stone on the ladder's path, White runs.
    let mut broken = board.clone();
    broken.play_unchecked(at("G7"), Color::White);
    scratch.reset(&broken);
    tactical_replies(&broken, Color::White, at("C4"), &mut scratch);
    assert_eq!(scratch.candidates, vec![at("D3")]);
}
