//! SGF text to a tree of nodes: the syntax only, no Go semantics.
//!
//! Every error carries the byte offset, line and column where it was found.
//! Nothing here recurses: parsing, cloning, comparing, writing and dropping
//! trees all use explicit stacks, so arbitrarily long main lines are safe and
//! deep nesting is refused with an error rather than a stack overflow.

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
///
/// `Clone`, `PartialEq`, `Debug` and `Drop` are iterative, so trees of any
/// depth (such as a 100,000-move main line) are handled without recursion.
#[derive(Default)]
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

impl Drop for Node {
    fn drop(&mut self) {
        // Detach descendants onto a heap stack so that each node is dropped
        // with no children left, instead of recursing down the tree.
        let mut pending = std::mem::take(&mut self.children);
        while let Some(mut node) = pending.pop() {
            pending.append(&mut node.children);
        }
    }
}

impl Clone for Node {
    fn clone(&self) -> Node {
        // Each frame: a source node and the clones of its children made so far.
        let mut stack: Vec<(&Node, Vec<Node>)> =
            vec![(self, Vec::with_capacity(self.children.len()))];
        loop {
            let (source, done) = match stack.last() {
                Some((source, built)) => (*source, built.len()),
                None => unreachable!("the root frame is popped last"),
            };
            if done < source.children.len() {
                let child = &source.children[done];
                stack.push((child, Vec::with_capacity(child.children.len())));
                continue;
            }
            let Some((source, children)) = stack.pop() else {
                unreachable!("a frame was just looked at")
            };
            let node = Node {
                properties: source.properties.clone(),
                children,
            };
            match stack.last_mut() {
                Some((_, built)) => built.push(node),
                None => return node,
            }
        }
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        let mut pending = vec![(self, other)];
        while let Some((a, b)) = pending.pop() {
            if a.properties != b.properties || a.children.len() != b.children.len() {
                return false;
            }
            pending.extend(a.children.iter().zip(&b.children));
        }
        true
    }
}

impl Eq for Node {}

impl fmt::Debug for Node {
    /// The subtree as canonical SGF (see [`write_tree`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Node").field(&write_tree(self)).finish()
    }
}

/// The tree rooted at `node` as one canonical SGF game tree `(;...)`:
/// properties in their stored order, each value in brackets with `]` and `\`
/// escaped, a lone child continuing the sequence and several children written
/// as variations. [`parse_collection`] reads the text back to an equal tree
/// provided every identifier is non-empty upper-case ASCII, unique within its
/// node, and has at least one value.
pub fn write_tree(node: &Node) -> String {
    enum Step<'a> {
        Node(&'a Node),
        Open(&'a Node),
        Close,
    }
    let mut out = String::from("(");
    let mut steps = vec![Step::Close, Step::Node(node)];
    while let Some(step) = steps.pop() {
        let node = match step {
            Step::Close => {
                out.push(')');
                continue;
            }
            Step::Open(node) => {
                out.push('(');
                node
            }
            Step::Node(node) => node,
        };
        out.push(';');
        for property in &node.properties {
            out.push_str(&property.id);
            for value in &property.values {
                out.push('[');
                for c in value.chars() {
                    if c == ']' || c == '\\' {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push(']');
            }
        }
        match node.children.as_slice() {
            [] => {}
            [only] => steps.push(Step::Node(only)),
            several => {
                for child in several.iter().rev() {
                    steps.push(Step::Close);
                    steps.push(Step::Open(child));
                }
            }
        }
    }
    out
}

/// Why SGF text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the text.
    pub offset: usize,
    /// Line of the offset, from 1 (`\n`, `\r\n` and a lone `\r` each end a
    /// line).
    pub line: usize,
    /// Column of the offset in characters, from 1 (a leading byte-order mark
    /// is not counted).
    pub column: usize,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SGF syntax error at line {}, column {}: {} (byte {})",
            self.line, self.column, self.reason, self.offset
        )
    }
}

/// The 1-based line and character column of byte `offset` in `bytes`.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(bytes.len());
    let mut line = 1;
    let mut line_start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    for (i, &b) in bytes[..offset].iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            line += 1;
            line_start = i + 1;
        }
    }
    let start = line_start.min(offset);
    // Count characters as UTF-8 lead bytes (continuation bytes are 10xxxxxx).
    let column = 1 + bytes[start..offset]
        .iter()
        .filter(|&&b| b & 0xc0 != 0x80)
        .count();
    (line, column)
}

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

impl std::error::Error for ParseError {}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Deepest nesting of variations accepted, so that hostile input cannot
/// exhaust the stack.
const MAX_DEPTH: usize = 10_000;

/// Parses a collection: one or more game trees `( ... )`. Text before the
/// first `(` (such as a byte-order mark) and after the last tree is ignored,
/// as readers commonly do. Also tolerated: a missing `;` before the first
/// node of a tree (`(B[aa];W[bb])`), lower-case letters in identifiers
/// (FF\[1–3\] `AddBlack`), whitespace between an identifier and its `[`, and
/// repeated identifiers in one node (their values are merged).
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
        let (line, column) = line_column(self.bytes, self.pos);
        ParseError {
            offset: self.pos,
            line,
            column,
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
                // Properties straight after `(`: a first node missing its `;`.
                Some(c)
                    if c.is_ascii_alphabetic()
                        && stack.last().is_some_and(|open| open.sequence.is_empty()) =>
                {
                    let node = self.node()?;
                    if let Some(open) = stack.last_mut() {
                        open.sequence.push(node);
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
                Err(e) => {
                    assert_eq!(e.offset, offset, "{text}: {e}");
                    assert_eq!((e.line, e.column), (1, offset + 1), "{text}: {e}");
                }
                Ok(t) if text == "(;B[a])x" => {
                    assert_eq!(t.len(), 1);
                }
                Ok(_) => panic!("{text} parsed"),
            }
        }
        assert!(parse_collection("").is_err());
        assert!(parse_collection(&"(".repeat(20_000)).is_err());
    }

    #[test]
    fn lines_and_columns() {
        let e = parse_collection("(;GM[1]\r\n;C[\u{e9}t\u{e9}]\n  ;B[aa]!)").unwrap_err();
        assert_eq!((e.offset, e.line, e.column), (27, 3, 9), "{e}");
        assert_eq!(
            e.to_string(),
            "SGF syntax error at line 3, column 9: expected '(', ';' or ')' (byte 27)"
        );
        let e = parse_collection("\u{feff}(;\u{e9}\u{e9}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3), "{e}");
        let e = parse_collection("(;C[a]\r;B[\u{e9}x]\r;\u{e9})").unwrap_err();
        assert_eq!((e.line, e.column), (3, 2), "{e}");
    }

    #[test]
    fn first_node_without_semicolon() {
        let trees = parse_collection("(B[aa];W[bb])").unwrap();
        assert_eq!(trees[0].first("B"), Some("aa"));
        assert_eq!(trees[0].children[0].first("W"), Some("bb"));
        assert!(parse_collection("(;B[aa]W[bb]C[x] (;B[cc]) D[dd])").is_err());
    }

    #[test]
    fn write_tree_round_trips() {
        let text = "(;FF[4]C[a \\] b\\\\]AB[aa][bb];B[cc](;W[dd])(;W[ee];B[ff]))";
        let tree = parse_collection(text).unwrap().remove(0);
        assert_eq!(write_tree(&tree), text);
        assert_eq!(parse_collection(&write_tree(&tree)).unwrap()[0], tree);
    }
}
