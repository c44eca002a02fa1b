//! The token stream of a KataGo model file: whitespace-separated text tokens
//! with weight arrays embedded as `@BIN@` and raw little-endian `f32`s.

use super::FormatError;

/// How many bytes may separate a token from the `@BIN@` of the array after
/// it (KataGo's reader allows the same slack).
const MAX_SKIP_BEFORE_ARRAY: usize = 100;

/// A cursor over the decompressed model bytes that knows which layer it is
/// reading, so that every error names the layer and the byte offset.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    offset: usize,
    layer: String,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Reader<'a> {
        Reader {
            data,
            offset: 0,
            layer: "header".to_string(),
        }
    }

    /// Notes the layer now being read, for error messages.
    pub(crate) fn set_layer(&mut self, name: &str) {
        self.layer.clear();
        self.layer.push_str(name);
    }

    /// An error at the current offset in the current layer.
    pub(crate) fn error(&self, reason: impl Into<String>) -> FormatError {
        FormatError {
            offset: self.offset,
            layer: self.layer.clone(),
            reason: reason.into(),
        }
    }

    /// The next whitespace-delimited token; `what` says what was expected.
    pub(crate) fn token(&mut self, what: &str) -> Result<&'a str, FormatError> {
        while self.offset < self.data.len() && self.data[self.offset].is_ascii_whitespace() {
            self.offset += 1;
        }
        let start = self.offset;
        while self.offset < self.data.len() && !self.data[self.offset].is_ascii_whitespace() {
            self.offset += 1;
        }
        if start == self.offset {
            return Err(FormatError {
                offset: start,
                layer: self.layer.clone(),
                reason: format!("the file ends where {what} was expected"),
            });
        }
        std::str::from_utf8(&self.data[start..self.offset]).map_err(|_| FormatError {
            offset: start,
            layer: self.layer.clone(),
            reason: format!("{what} is not text"),
        })
    }

    /// A layer or model name: the token, after checking it is printable text.
    pub(crate) fn name(&mut self, what: &str) -> Result<String, FormatError> {
        let start = self.offset;
        let token = self.token(what)?;
        if token.len() > 256 || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(FormatError {
                offset: start,
                layer: self.layer.clone(),
                reason: format!("{what} is not a name"),
            });
        }
        Ok(token.to_string())
    }

    /// An integer token.
    pub(crate) fn int(&mut self, what: &str) -> Result<i64, FormatError> {
        let start = self.offset;
        let token = self.token(what)?;
        token.parse::<i64>().map_err(|_| FormatError {
            offset: start,
            layer: self.layer.clone(),
            reason: format!("{what} should be an integer, found {:?}", shorten(token)),
        })
    }

    /// An integer token within `min..=max`.
    pub(crate) fn int_in(&mut self, what: &str, min: i64, max: i64) -> Result<i64, FormatError> {
        let start = self.offset;
        let value = self.int(what)?;
        if value < min || value > max {
            return Err(FormatError {
                offset: start,
                layer: self.layer.clone(),
                reason: format!("{what} is {value}, outside {min}..={max}"),
            });
        }
        Ok(value)
    }

    /// A channel count or kernel size: an integer in `1..=max`.
    pub(crate) fn count(&mut self, what: &str, max: usize) -> Result<usize, FormatError> {
        Ok(self.int_in(what, 1, max as i64)? as usize)
    }

    /// A flag written as `0` or `1`.
    pub(crate) fn flag(&mut self, what: &str) -> Result<bool, FormatError> {
        Ok(self.int_in(what, 0, 1)? == 1)
    }

    /// A number written as decimal text.
    pub(crate) fn float(&mut self, what: &str) -> Result<f32, FormatError> {
        let start = self.offset;
        let token = self.token(what)?;
        match token.parse::<f32>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(FormatError {
                offset: start,
                layer: self.layer.clone(),
                reason: format!(
                    "{what} should be a finite number, found {:?}",
                    shorten(token)
                ),
            }),
        }
    }

    /// An embedded array of `count` floats (`@BIN@` then `4 * count` bytes).
    pub(crate) fn floats(&mut self, count: usize, what: &str) -> Result<Vec<f32>, FormatError> {
        let search_end = (self.offset + MAX_SKIP_BEFORE_ARRAY + 1).min(self.data.len());
        let at = self.data[self.offset..search_end]
            .iter()
            .position(|&b| b == b'@')
            .ok_or_else(|| self.error(format!("{what}: no @BIN@ weight array here")))?;
        self.offset += at;
        if !self.data[self.offset..].starts_with(b"@BIN@") {
            return Err(self.error(format!("{what}: no @BIN@ weight array here")));
        }
        self.offset += 5;
        let bytes = count
            .checked_mul(4)
            .filter(|&bytes| bytes <= self.data.len() - self.offset)
            .ok_or_else(|| {
                self.error(format!(
                    "{what}: {count} weights do not fit in the {} bytes left (file truncated?)",
                    self.data.len() - self.offset
                ))
            })?;
        let raw = &self.data[self.offset..self.offset + bytes];
        let mut values = Vec::with_capacity(count);
        for (index, chunk) in raw.chunks_exact(4).enumerate() {
            let value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if !value.is_finite() {
                return Err(FormatError {
                    offset: self.offset + 4 * index,
                    layer: self.layer.clone(),
                    reason: format!("{what}: weight {index} is not finite"),
                });
            }
            values.push(value);
        }
        self.offset += bytes;
        Ok(values)
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&self) -> bool {
        self.data[self.offset..].iter().all(u8::is_ascii_whitespace)
    }
}

/// A token cut short for an error message.
fn shorten(token: &str) -> String {
    token.chars().take(40).collect()
}
