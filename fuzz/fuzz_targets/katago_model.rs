#![no_main]
//! Any bytes through the KataGo model reader: a model or an error naming an
//! offset and a layer, never a panic or an allocation the bytes do not pay
//! for.

use libfuzzer_sys::fuzz_target;
use tengen_katago::model::ModelDesc;

fuzz_target!(|data: &[u8]| {
    if let Err(error) = ModelDesc::parse(data) {
        assert!(error.offset <= data.len());
        assert!(!error.reason.is_empty());
    }
});
