//! [`Engine::run`]: the loop over a reader and a writer. Input is read on a
//! thread of its own, so that a streamed analysis, and a bot pondering after
//! its move, can watch for the next command.

use std::cell::RefCell;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, TryRecvError};

use super::analysis::is_streamed;
use super::protocol::{self, format_response, preprocess, read_line_capped, split_command};
use super::{CommandError, Engine};

/// Whether the next line of input has come (it is then kept in `pending`
/// to be answered next), or the input has ended.
fn next_line_arrived(
    pending: &RefCell<Option<InputLine>>,
    receiver: &mpsc::Receiver<InputLine>,
) -> bool {
    if pending.borrow().is_some() {
        return true;
    }
    match receiver.try_recv() {
        Ok(next) => {
            *pending.borrow_mut() = Some(next);
            true
        }
        Err(TryRecvError::Empty) => false,
        Err(TryRecvError::Disconnected) => true,
    }
}

/// A line read by [`Engine::run`]'s input thread: the bytes and whether it
/// was cut at the length cap, `None` at the end of input.
type InputLine = io::Result<Option<(Vec<u8>, bool)>>;

impl Engine {
    /// Serves commands from `reader` until `quit` or the end of input, writing
    /// each response to `writer` and flushing it. Only responses are written.
    ///
    /// Input is read on a thread of its own, so that a streamed analysis
    /// (`lz-analyze`, `kata-analyze`) runs until the next command arrives.
    pub fn run<R: BufRead + Send + 'static>(
        &mut self,
        reader: R,
        mut writer: impl Write,
    ) -> io::Result<()> {
        let (sender, receiver) = mpsc::channel::<InputLine>();
        std::thread::spawn(move || {
            let mut reader = reader;
            loop {
                let mut line = Vec::new();
                let read = read_line_capped(&mut reader, &mut line, protocol::MAX_LINE_BYTES);
                let more = matches!(read, Ok(Some(_)));
                if sender.send(read.map(|r| r.map(|t| (line, t)))).is_err() || !more {
                    break;
                }
            }
        });
        let pending: RefCell<Option<InputLine>> = RefCell::new(None);
        while !self.quit {
            let next = match pending.borrow_mut().take() {
                Some(next) => next,
                None => match receiver.recv() {
                    Ok(next) => next,
                    Err(_) => break,
                },
            };
            let Some((line, truncated)) = next? else {
                break;
            };
            if truncated {
                writer.write_all(self.line_too_long(&line).as_bytes())?;
                writer.flush()?;
                continue;
            }
            let text = preprocess(&line);
            if let Some(command) = split_command(&text).filter(|c| is_streamed(c.name)) {
                // The next line, when one comes, ends the analysis; it is kept
                // to be answered next.
                let stop = || next_line_arrived(&pending, &receiver);
                let name = command.name.unwrap_or_default();
                self.stream(command.id, name, &command.args, &mut writer, &stop)?;
                if name.ends_with("genmove_analyze") {
                    self.ponder(&stop);
                }
                continue;
            }
            let name = split_command(&text).and_then(|c| c.name);
            if let Some(response) = self.respond(&text) {
                writer.write_all(response.as_bytes())?;
                writer.flush()?;
            }
            if matches!(name, Some("genmove" | "kgs-genmove_cleanup")) {
                // The next line ends the pondering, as it ends an analysis.
                self.ponder(&|| next_line_arrived(&pending, &receiver));
            }
        }
        Ok(())
    }

    /// Lets the bot think on the opponent's time after its move, until
    /// `stop` (the next line of input) says otherwise.
    fn ponder(&mut self, stop: &dyn Fn() -> bool) {
        if self.quit || self.ended() {
            return;
        }
        let game = self.game.clone();
        self.agent.ponder(&game, stop);
    }

    /// The error response to a line cut at the length cap, with the id if
    /// the kept part has one.
    fn line_too_long(&self, prefix: &[u8]) -> String {
        let text = preprocess(prefix);
        let id = split_command(&text).and_then(|c| c.id);
        format_response(false, id, &CommandError::LineTooLong.to_string())
    }
}
