//! The model shipped with tengen: a 9×9 network (policy and value) trained
//! with `tengen nn train` on games tengen generated (see
//! docs/experiments/2026-11-22-shipped-9x9-model.md). It is compiled into
//! the binary, so `--bot policy` and `--bot mcts:network=builtin` work on a
//! fresh machine with no file at hand.

use crate::model::{Model, ModelError};

/// The model file's bytes (`models/tengen-9x9.tgm`).
pub static BUILTIN_MODEL: &[u8] = include_bytes!("../../../models/tengen-9x9.tgm");

/// The shipped model, checked and loaded.
pub fn model() -> Result<Model, ModelError> {
    Model::from_bytes(BUILTIN_MODEL)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_builtin_model_loads_and_plays_9x9() {
        let model = super::model().expect("the shipped model loads");
        let meta = model.metadata();
        assert_eq!((meta.width, meta.height), (9, 9));
        assert!(meta.provenance.epochs >= 1, "a trained model");
    }
}
