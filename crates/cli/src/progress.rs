//! Progress bars on standard error beside report lines on standard output.

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget};

/// Writes with the progress bar lifted out of the way, so that report lines
/// and the bar do not garble each other on a terminal: the bar is cleared,
/// the bytes written, and the bar drawn again below them.
pub struct SuspendingWriter<'a, W> {
    bar: &'a ProgressBar,
    inner: W,
}

impl<'a, W: Write> SuspendingWriter<'a, W> {
    /// Writes to `inner` around `bar`.
    pub fn new(bar: &'a ProgressBar, inner: W) -> Self {
        SuspendingWriter { bar, inner }
    }

    /// The writer written to.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for SuspendingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bar.suspend(|| self.inner.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.bar.suspend(|| self.inner.flush())
    }
}

/// `bar` drawn on standard error when that is a terminal, hidden otherwise
/// (a log file or a pipe gets no bar frames).
pub fn hidden_unless_terminal(bar: ProgressBar) -> ProgressBar {
    if !io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_pass_through_unchanged() {
        let bar = ProgressBar::hidden();
        let mut out = SuspendingWriter::new(&bar, Vec::new());
        write!(out, "line one\nline ").unwrap();
        writeln!(out, "two").unwrap();
        out.flush().unwrap();
        assert_eq!(out.into_inner(), b"line one\nline two\n");
    }
}
