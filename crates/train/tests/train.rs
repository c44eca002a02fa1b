//! Training: a tiny network learns a fixed synthetic target in a few steps,
//! runs are reproducible from their seed, and a run resumed from a
//! checkpoint ends exactly where the uninterrupted run does.

use tengen_core::{BoardSize, Color, Game};
use tengen_nn::net::Architecture;
use tengen_train::data::{Dataset, GameRecord};
use tengen_train::train::{TrainConfig, Trainer};

/// Games on 5×5 whose moves always answer the same way: Black C3, White
/// the point below it, Black the point left of it. A network that learns
/// them predicts every move.
fn synthetic() -> Dataset {
    let size = BoardSize::square(5).unwrap();
    let index = |col: usize, row: usize| (row * 5 + col) as u16;
    let record = GameRecord {
        size,
        komi: 7.5,
        setup: Vec::new(),
        first: Color::Black,
        moves: vec![Some(index(2, 2)), Some(index(2, 1)), Some(index(1, 2))],
        winner: Some(Color::Black),
    };
    Dataset {
        train: vec![record.clone(); 32],
        validation: vec![record; 4],
    }
}

fn config(epochs: usize) -> TrainConfig {
    TrainConfig {
        encoder: "zero".to_string(),
        architecture: Architecture::Residual {
            blocks: 1,
            channels: 8,
        },
        epochs,
        batch: 16,
        learning_rate: 0.01,
        seed: 5,
        augment: false,
        value_weight: 1.0,
        positions_per_epoch: None,
        validation_limit: None,
    }
}

fn outputs(trainer: &Trainer, data: &Dataset) -> Vec<Vec<f32>> {
    let model = trainer.model(data).unwrap();
    let game = Game::new(BoardSize::square(5).unwrap(), Default::default());
    model
        .predict(&[&game])
        .into_iter()
        .map(|p| p.policy)
        .collect()
}

#[test]
fn a_tiny_network_learns_a_fixed_target() {
    let data = synthetic();
    let mut trainer = Trainer::new(config(6), &data, "synthetic").unwrap();
    let before = trainer.validate(&data);
    let mut last = None;
    for _ in 0..6 {
        last = Some(trainer.run_epoch(&data, &mut |_, _, _| {}).unwrap());
    }
    let after = last.unwrap().validation;
    assert!(
        after.policy_loss < before.policy_loss * 0.5,
        "loss {} -> {}",
        before.policy_loss,
        after.policy_loss
    );
    assert_eq!(after.top1, 1.0, "every move learned: {after:?}");
    assert!(after.value_loss.unwrap() < before.value_loss.unwrap());
}

#[test]
fn training_is_reproducible_and_resumes_exactly() {
    let data = synthetic();
    let mut first = Trainer::new(config(2), &data, "synthetic").unwrap();
    let mut second = Trainer::new(config(2), &data, "synthetic").unwrap();
    for _ in 0..2 {
        first.run_epoch(&data, &mut |_, _, _| {}).unwrap();
    }
    for _ in 0..2 {
        second.run_epoch(&data, &mut |_, _, _| {}).unwrap();
    }
    assert_eq!(outputs(&first, &data), outputs(&second, &data));

    // One epoch, a checkpoint, then a resumed second epoch.
    let dir = std::env::temp_dir().join(format!("tengen-train-{}", std::process::id()));
    let mut interrupted = Trainer::new(config(2), &data, "synthetic").unwrap();
    interrupted.run_epoch(&data, &mut |_, _, _| {}).unwrap();
    let checkpoint = interrupted.save_checkpoint(&data, &dir).unwrap();
    assert!(checkpoint.exists());
    let mut resumed = Trainer::resume(config(2), &data, "synthetic", &checkpoint).unwrap();
    assert_eq!(resumed.epochs_done(), 1);
    resumed.run_epoch(&data, &mut |_, _, _| {}).unwrap();
    let a = outputs(&first, &data);
    let b = outputs(&resumed, &data);
    for (x, y) in a[0].iter().zip(&b[0]) {
        assert!((x - y).abs() < 1e-5, "resumed run differs: {x} vs {y}");
    }
    // A checkpoint does not resume a run of another shape.
    let mut other = config(2);
    other.architecture = Architecture::Small;
    assert!(Trainer::resume(other, &data, "synthetic", &checkpoint).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
