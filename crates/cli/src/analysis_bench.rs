//! What `tengen bench analysis` needs: a game as one analysis query, and an
//! analysis engine run as a child process and timed on it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tengen_core::{Game, Move};

/// A game's positions as one query.
pub struct GameQuery {
    /// Positions analysed (turns 0 to the last move).
    pub positions: usize,
    /// The board's width and height.
    pub size: (usize, usize),
    body: String,
}

impl GameQuery {
    /// The query line at `visits` visits a position.
    pub fn line(&self, visits: u64) -> String {
        format!(r#"{{"id":"bench",{},"maxVisits":{visits}}}"#, self.body)
    }
}

/// Every position of `game` before its `turns`-th move (all when `None`),
/// under KataGo's `chinese` rules with the game's komi.
pub fn game_query(game: &Game, turns: Option<usize>) -> GameQuery {
    let size = game.size();
    let mut stones = Vec::new();
    let initial = game.initial_board();
    for point in size.points() {
        if let Some(color) = initial.stone(point) {
            stones.push(format!(
                r#"["{}","{}"]"#,
                color.letter(),
                size.gtp(Move::Play(point))
            ));
        }
    }
    let moves: Vec<String> = game
        .moves()
        .into_iter()
        .map(|(color, mv)| format!(r#"["{}","{}"]"#, color.letter(), size.gtp(mv)))
        .take(turns.unwrap_or(usize::MAX))
        .collect();
    let komi = game.rules().komi;
    let komi = if (komi * 2.0).fract() == 0.0 {
        komi
    } else {
        7.5
    };
    let analysed: Vec<String> = (0..=moves.len()).map(|t| t.to_string()).collect();
    GameQuery {
        positions: analysed.len(),
        size: (size.width(), size.height()),
        body: format!(
            r#""initialStones":[{}],"moves":[{}],"rules":"chinese","komi":{komi},"boardXSize":{},"boardYSize":{},"analyzeTurns":[{}]"#,
            stones.join(","),
            moves.join(","),
            size.width(),
            size.height(),
            analysed.join(",")
        ),
    }
}

/// A program and its arguments.
pub struct EngineCommand {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// Starts the engine, waits for it to answer a first one-visit query on a
/// board of `size` (so that loading the network is not timed), then sends
/// `query` and times it until every position has its final response.
pub fn time_engine(
    command: &EngineCommand,
    size: (usize, usize),
    query: &str,
) -> anyhow::Result<Duration> {
    let mut child = Command::new(&command.program)
        .args(&command.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut input = child.stdin.take().expect("piped");
    let mut output = BufReader::new(child.stdout.take().expect("piped"));
    let finals = |id: &str, count: usize, output: &mut BufReader<_>| -> anyhow::Result<()> {
        let mut seen = 0;
        let mut line = String::new();
        while seen < count {
            line.clear();
            if output.read_line(&mut line)? == 0 {
                anyhow::bail!("the engine stopped before answering");
            }
            let value: serde_json::Value = serde_json::from_str(line.trim())?;
            if value.get("error").is_some() {
                anyhow::bail!("the engine answered an error: {}", line.trim());
            }
            if value["id"] == id && value["isDuringSearch"] != true {
                seen += 1;
            }
        }
        Ok(())
    };
    writeln!(
        input,
        r#"{{"id":"warm","moves":[],"rules":"chinese","komi":7.5,"boardXSize":{},"boardYSize":{},"maxVisits":1}}"#,
        size.0, size.1
    )?;
    input.flush()?;
    finals("warm", 1, &mut output)?;
    let positions = query
        .split("\"analyzeTurns\":[")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .map_or(1, |turns| turns.split(',').count());
    let start = Instant::now();
    writeln!(input, "{query}")?;
    input.flush()?;
    finals("bench", positions, &mut output)?;
    let elapsed = start.elapsed();
    drop(input);
    let _ = child.kill();
    let _ = child.wait();
    Ok(elapsed)
}
