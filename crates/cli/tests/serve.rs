//! `tengen serve --model PATH`: a network that cannot be read stops the
//! server before it listens, with one line naming the problem; a good one
//! (the network of the PyPI package katrain 1.20.0, fetched by
//! `scripts/katago-model`) is offered as the bot `katago`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use tengen_katago::reference::model_path;

/// `tengen serve` with these arguments, its error output free of logs and
/// backtraces.
fn serve(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tengen"));
    command
        .arg("serve")
        .args(["--port", "0"])
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("RUST_LOG");
    command
}

#[track_caller]
fn refused(model: &Path, reason: &str) {
    let output = serve(&["--model", model.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .expect("run tengen serve");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "{}: the server started",
        model.display()
    );
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{}: not one line:\n{stderr}",
        model.display()
    );
    assert!(
        lines[0].contains(&format!(
            "cannot serve the KataGo network '{}'",
            model.display()
        )),
        "{stderr}"
    );
    assert!(lines[0].contains(reason), "{}: {stderr}", model.display());
}

#[test]
fn a_missing_network_stops_the_server_with_one_line() {
    refused(Path::new("/nonexistent"), "cannot read it");
}

#[test]
fn networks_that_cannot_be_read_stop_the_server_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("tengen-serve-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text_file = dir.join("weights.bin.gz");
    std::fs::write(&text_file, "not a network").unwrap();
    let truncated = dir.join("truncated.bin.gz");
    let whole = std::fs::read(model_path()).unwrap();
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    refused(&dir.join("missing.bin.gz"), "cannot read it");
    refused(&dir, "is a directory");
    refused(&text_file, "not a KataGo model");
    refused(&truncated, "corrupt or truncated");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Kills the server when the test ends, passed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn get(address: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn a_good_network_is_offered_as_katago() {
    let model = model_path();
    let mut server = Server(
        serve(&["--model", model.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tengen serve"),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("tengen serve: open http://")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    let answer = get(&address, "/api/bots");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"name\":\"katago\""), "{answer}");
    assert!(answer.contains("KataGo network"), "{answer}");

    // Without --model, nothing changes: the bot is not offered.
    let mut plain = Server(
        serve(&[])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tengen serve"),
    );
    let mut line = String::new();
    BufReader::new(plain.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .trim_start_matches("tengen serve: open http://")
        .trim_end_matches('/')
        .to_string();
    let answer = get(&address, "/api/bots");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"name\":\"mcts\""), "{answer}");
    assert!(!answer.contains("katago"), "{answer}");
}
