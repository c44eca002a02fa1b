//! Where the time of a forward pass goes (`tengen bench katago --layers`):
//! every class of layer the network has is seen, and the classes and the
//! threads' waiting add up to the pass.

use std::time::Duration;

use tengen_katago::bench::layer_profile;
use tengen_katago::forward::profile::LayerClass;
use tengen_katago::forward::{Exec, Kernel};
use tengen_katago::model::ModelDesc;
use tengen_katago::reference::model_path;

#[test]
fn the_layer_profile_sees_every_class_and_adds_up_to_the_pass() {
    let model = ModelDesc::load(model_path()).unwrap();
    // Batch 2 on 2 threads: a position per thread; batch 1: the layers
    // shared between the threads.
    for (batch, threads) in [(1, 1), (2, 2), (1, 2)] {
        let exec = Exec {
            threads,
            kernel: Kernel::F32,
        };
        let profile = layer_profile(&model, 9, batch, exec, Duration::from_millis(300));
        assert!(profile.passes >= 1);
        let lines = profile.lines();
        let total: f64 = lines.iter().map(|l| l.millis).sum();
        let shares: f64 = lines.iter().map(|l| l.share).sum();
        let pass = profile.pass_millis();
        assert!(
            (total - pass).abs() <= 0.02 * pass,
            "batch {batch}, {threads} threads: the lines add up to {total:.2} ms of a {pass:.2} ms pass"
        );
        assert!((shares - 1.0).abs() <= 0.02, "shares add up to {shares}");
        // This network (nested bottleneck blocks of attention and
        // feed-forward layers between 1×1 convolutions) has a layer of each
        // class; in f32 packing is only attention's gathering of its heads, and the
        // inputs and outputs little more than copies.
        for class in LayerClass::ALL
            .into_iter()
            .filter(|c| !matches!(c, LayerClass::PackingAndLayout | LayerClass::Other))
        {
            let line = lines.iter().find(|l| l.class == Some(class)).unwrap();
            assert!(
                line.millis > 0.0,
                "batch {batch}, {threads} threads: no time in {}",
                class.name()
            );
        }
        // Feed-forward products are the largest class of this network.
        let ffn = lines
            .iter()
            .find(|l| l.class == Some(LayerClass::FeedForward))
            .unwrap();
        assert!(ffn.share > 0.1, "feed-forward {:.3} of the pass", ffn.share);
    }
}
