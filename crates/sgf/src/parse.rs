//! SGF text to a tree of nodes: the syntax only, no Go semantics.
//!
//! Every error carries the byte offset where it was found.

use std::fmt;

/// One property: an identifier such as `B` or `AB` and its values, unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The identifier, upper-case letters (lower-case letters of FF\[1–3\]
    /// identifiers such as `AddBlack` are dropped).
    pub id: String,
    /// The values, with escapes removed and soft line breaks joined.
    pub values: Vec<String>,
}

/// A node with its properties and its children (the first child continues the
/// main line; the others are variations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Properties in file order.
    pub properties: Vec<Property>,
    /// Following nodes: the first is the main line.
    pub children: Vec<Node>,
}

impl Node {
    /// The values of property `id`, if present.
    pub fn get(&self, id: &str) -> Option<&[String]> {
        self.properties
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.values.as_slice())
    }

    /// The first value of property `id`, if present.
    pub fn first(&self, id: &str) -> Option<&str> {
        self.get(id).and_then(|v| v.first()).map(String::as_str)
    }
}

/// Why SGF text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the text.
    pub offset: usize,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SGF syntax error at byte {}: {}",
            self.offset, self.reason
        )
    }
}

impl std::error::Error for ParseError {}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Deepest nesting of variations accepted, so that hostile input cannot
/// exhaust the stack.
const MAX_DEPTH: usize = 10_000;

/// Parses a collection: one or more game trees `( ... )`. Text before the
/// first `(` is ignored, as readers commonly do.
pub fn parse_collection(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let mut trees = Vec::new();
    loop {
        parser.skip_until_tree();
        if parser.pos >= parser.bytes.len() {
            break;
        }
        trees.push(parser.game_tree()?);
    }
    if trees.is_empty() {
        return Err(parser.error("no game tree found"));
    }
    Ok(trees)
}

impl Parser<'_> {
    fn error(&self, reason: &str) -> ParseError {
        ParseError {
            offset: self.pos,
            reason: reason.to_string(),
        }
    }

    fn skip_whitespace(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn skip_until_tree(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'(' {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// `( node+ tree* )`, iteratively for the sequence and with an explicit
    /// stack for the variations.
    fn game_tree(&mut self) -> Result<Node, ParseError> {
        // Each open tree: the nodes of its sequence so far and its variations.
        struct Open {
            sequence: Vec<Node>,
            variations: Vec<Node>,
        }
        let mut stack: Vec<Open> = Vec::new();
        loop {
            self.skip_whitespace();
            match self.peek() {
                Some(b'(') => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(self.error("variations nested too deeply"));
                    }
                    self.pos += 1;
                    stack.push(Open {
                        sequence: Vec::new(),
                        variations: Vec::new(),
                    });
                }
                Some(b';') => {
                    match stack.last() {
                        None => return Err(self.error("node outside a game tree")),
                        Some(open) if !open.variations.is_empty() => {
                            return Err(self.error("node after a variation"))
                        }
                        Some(_) => {}
                    }
                    self.pos += 1;
                    let node = self.node()?;
                    if let Some(open) = stack.last_mut() {
                        open.sequence.push(node);
                    }
                }
                Some(b')') => {
                    self.pos += 1;
                    let Some(open) = stack.pop() else {
                        return Err(self.error("unbalanced ')'"));
                    };
                    if open.sequence.is_empty() {
                        return Err(self.error("empty game tree"));
                    }
                    // Chain the sequence: each node's child is the next one; the
                    // last node's children are the variations.
                    let mut nodes = open.sequence;
                    let mut tail = nodes.pop().unwrap_or_default();
                    tail.children = open.variations;
                    while let Some(mut node) = nodes.pop() {
                        node.children = vec![tail];
                        tail = node;
                    }
                    match stack.last_mut() {
                        Some(parent) => parent.variations.push(tail),
                        None => return Ok(tail),
                    }
                }
                Some(_) => return Err(self.error("expected '(', ';' or ')'")),
                None => return Err(self.error("unexpected end of text: missing ')'")),
            }
        }
    }

    fn node(&mut self) -> Result<Node, ParseError> {
        let mut node = Node::default();
        loop {
            self.skip_whitespace();
            match self.peek() {
                Some(c) if c.is_ascii_alphabetic() => {
                    let property = self.property()?;
                    if let Some(existing) = node.properties.iter_mut().find(|p| p.id == property.id)
                    {
                        // Repeated identifiers in one node are an error in FF[4];
                        // real files have them, so merge the values.
                        existing.values.extend(property.values);
                    } else {
                        node.properties.push(property);
                    }
                }
                _ => return Ok(node),
            }
        }
    }

    fn property(&mut self) -> Result<Property, ParseError> {
        let mut id = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_uppercase() {
                id.push(c as char);
            } else if !c.is_ascii_lowercase() {
                break;
            }
            self.pos += 1;
        }
        if id.is_empty() {
            return Err(self.error("property identifier without upper-case letters"));
        }
        let mut values = Vec::new();
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'[') {
                break;
            }
            self.pos += 1;
            values.push(self.value()?);
        }
        if values.is_empty() {
            return Err(self.error(&format!("property {id} has no value")));
        }
        Ok(Property { id, values })
    }

    /// A value up to the closing `]`: `\` escapes the next character, and an
    /// escaped line break (a soft break) is removed.
    fn value(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(self.error("value not closed by ']'"));
            };
            self.pos += 1;
            match c {
                b']' => break,
                b'\\' => match self.peek() {
                    Some(b'\n') => {
                        self.pos += 1;
                        if self.peek() == Some(b'\r') {
                            self.pos += 1;
                        }
                    }
                    Some(b'\r') => {
                        self.pos += 1;
                        if self.peek() == Some(b'\n') {
                            self.pos += 1;
                        }
                    }
                    Some(next) => {
                        out.push(next);
                        self.pos += 1;
                    }
                    None => {}
                },
                other => out.push(other),
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_line_and_variations() {
        let trees =
            parse_collection("junk (;FF[4]C[a \\] b\\\nc];B[aa](;W[bb])(;W[cc];B[dd]))").unwrap();
        assert_eq!(trees.len(), 1);
        let root = &trees[0];
        assert_eq!(root.first("C"), Some("a ] bc"));
        let b = &root.children[0];
        assert_eq!(b.first("B"), Some("aa"));
        assert_eq!(b.children.len(), 2);
        assert_eq!(b.children[1].children[0].first("B"), Some("dd"));
    }

    #[test]
    fn errors_have_offsets() {
        for (text, offset) in [
            ("(;B[aa]", 7),
            ("(;B[aa", 4),
            ("(;B)", 3),
            ("()", 2),
            ("(;B[a])x", 8),
        ] {
            match parse_collection(text) {
                Err(e) => assert_eq!(e.offset, offset, "{text}: {e}"),
                Ok(t) if text == "(;B[a])x" => {
                    assert_eq!(t.len(), 1);
                }
                Ok(_) => panic!("{text} parsed"),
            }
        }
        assert!(parse_collection("").is_err());
        assert!(parse_collection(&"(".repeat(20_000)).is_err());
    }
}
