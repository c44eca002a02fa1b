//! Progress bars on standard error beside report lines on standard output.

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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

/// A bar on standard error (hidden unless that is a terminal) of `len`
/// steps (`None`: set later), drawn by `template` (indicatif's template
/// language; the plain default bar if the template does not parse, so that
/// a cosmetic mistake never stops a command).
pub fn stderr_bar(len: Option<u64>, template: &str) -> ProgressBar {
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    hidden_unless_terminal(ProgressBar::with_draw_target(
        len,
        ProgressDrawTarget::stderr(),
    ))
    .with_style(style)
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

    #[test]
    fn a_stderr_bar_is_hidden_off_a_terminal_and_counts_its_steps() {
        let bar = stderr_bar(Some(10), "{bar:40} {pos}/{len} games");
        assert_eq!(bar.is_hidden(), !io::stderr().is_terminal());
        assert_eq!(bar.length(), Some(10));
        bar.inc(3);
        assert_eq!(bar.position(), 3);
        let unsized_bar = stderr_bar(None, "{not a template");
        assert_eq!(unsized_bar.length(), None);
    }
}
