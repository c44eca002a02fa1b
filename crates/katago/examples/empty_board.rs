use tengen_katago::{forward, model::ModelDesc, output};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let size: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let t = std::time::Instant::now();
    let model = ModelDesc::load(std::path::Path::new(&path)).unwrap();
    eprintln!(
        "loaded {} v{} params {} in {:?}",
        model.name,
        model.version,
        model.parameter_count(),
        t.elapsed()
    );
    let points = size * size;
    let mut spatial = vec![0.0f32; 22 * points];
    spatial[..points].fill(1.0);
    let mut global = vec![0.0f32; 19];
    global[5] = -0.375;
    global[18] = -0.5;
    let t = std::time::Instant::now();
    let raw = forward::forward(
        &model,
        1,
        size,
        size,
        &spatial,
        &global,
        0.2,
        forward::Exec::f32(1),
    );
    eprintln!("forward {:?}", t.elapsed());
    let legal = vec![true; points + 1];
    let e = output::evaluate(&model, &raw[0], &legal, false, false, false);
    println!("whiteWin {:.6}\nwhiteLoss {:.6}\nnoResult {:.6}\nwhiteLead {:.3}\nwhiteScoreSelfplay {:.3}\nwhiteScoreSelfplaySq {:.3}\nvarTimeLeft {:.3}\nshorttermWinlossError {:.3}\nshorttermScoreError {:.3}", e.white_win, e.white_loss, e.no_result, e.white_lead, e.white_score_mean, e.white_score_mean_sq, e.var_time_left, e.shortterm_winloss_error, e.shortterm_score_error);
    for y in 0..size {
        for x in 0..size {
            print!("{:8.6} ", e.policy[y * size + x]);
        }
        println!();
    }
    println!("policyPass {:8.6}", e.policy[points]);
    for y in 0..size {
        for x in 0..size {
            print!("{:9.7} ", e.white_ownership[y * size + x]);
        }
        println!();
    }
}
