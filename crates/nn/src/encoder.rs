//! Board encoders: a position as input planes for a network, and moves to
//! and from the network's move indices.
//!
//! The four encoders are the book's: [`OnePlaneEncoder`] (`"oneplane"`),
//! [`SevenPlaneEncoder`] (`"sevenplane"`), [`SimpleEncoder`] (`"simple"`) and
//! [`ZeroEncoder`] (`"zero"`, AlphaGo Zero style, with a pass output). Models
//! record the encoder's name and board size, and [`encoder_by_name`] makes the
//! encoder again from them.
//!
//! Every encoder uses the same layout: plane-major, and within a plane the
//! point at `(col, row)` (row 0 at the bottom, as [`BoardSize::col_row`] says)
//! at `row * width + col`. Moves use the same point index, with the pass, where
//! there is one, just after the points.

use std::fmt;

use tengen_core::{Board, BoardSize, Color, Game, Move, Point};

/// Defines an encoder: a struct that holds only its board size, its
/// registered `NAME`, `new`, and the [`Encoder`] impl that every encoder
/// shares. What sets one encoder apart is its constants and its
/// `set_planes(board, to_move, out)`, an inherent function of the struct
/// that sets the non-zero values of `out` (exactly
/// [`input_len`](Encoder::input_len) values, zeroed, on a board of the
/// encoder's size); the shared `encode` has already checked the arguments.
///
/// A macro rather than a blanket impl over a helper trait: each encoder stays
/// a public type of its own whose `NAME` and `new` callers can name without
/// importing anything else.
macro_rules! define_encoder {
    (
        $(#[$doc:meta])*
        $encoder:ident {
            name: $name:literal,
            planes: $planes:expr,
            has_pass: $has_pass:expr $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $encoder {
            size: tengen_core::BoardSize,
        }

        impl $encoder {
            /// The registered name.
            pub const NAME: &'static str = $name;

            /// The encoder for boards of `size`.
            pub fn new(size: tengen_core::BoardSize) -> $encoder {
                $encoder { size }
            }
        }

        impl $crate::encoder::Encoder for $encoder {
            fn name(&self) -> &'static str {
                Self::NAME
            }

            fn size(&self) -> tengen_core::BoardSize {
                self.size
            }

            fn planes(&self) -> usize {
                $planes
            }

            fn has_pass(&self) -> bool {
                $has_pass
            }

            fn encode(&self, game: &tengen_core::Game, out: &mut [f32]) {
                $crate::encoder::check_encode_args(self, game, out);
                let len = $crate::encoder::Encoder::input_len(self);
                let out = &mut out[..len];
                out.fill(0.0);
                Self::set_planes(game.board(), game.to_move(), out);
            }
        }
    };
}

mod oneplane;
mod sevenplane;
mod simple;
mod zero;

pub use oneplane::OnePlaneEncoder;
pub use sevenplane::SevenPlaneEncoder;
pub use simple::SimpleEncoder;
pub use zero::ZeroEncoder;

/// Turns positions into network input and moves into network output indices.
///
/// Implementations hold only the board size, so they are cheap to make and
/// share between threads.
pub trait Encoder: Send + Sync + fmt::Debug {
    /// Registered name: `"oneplane"`, `"sevenplane"`, `"simple"` or `"zero"`.
    fn name(&self) -> &'static str;

    /// The board size this encoder was made for.
    fn size(&self) -> BoardSize;

    /// Number of input planes.
    fn planes(&self) -> usize;

    /// Length of the input: `planes() * width * height`.
    fn input_len(&self) -> usize {
        self.planes() * self.size().points_count()
    }

    /// Number of move indices: `width * height`, plus 1 when
    /// [`has_pass`](Encoder::has_pass).
    fn moves(&self) -> usize {
        self.size().points_count() + self.has_pass() as usize
    }

    /// Whether the move space has a pass index (at `width * height`).
    fn has_pass(&self) -> bool;

    /// Writes the input planes for `game`'s position, from the point of view
    /// of the side to move where the encoder is relative, into
    /// `out[..input_len()]`, overwriting every value there and nothing after.
    ///
    /// Layout: plane-major; the value for plane `p` at point `(col, row)` is
    /// `out[p * w * h + row * w + col]`, `(col, row)` as
    /// [`BoardSize::col_row`] gives it. Allocates nothing.
    ///
    /// # Panics
    /// If `out` is shorter than [`input_len`](Encoder::input_len) or the game's
    /// board is not of this encoder's size.
    fn encode(&self, game: &Game, out: &mut [f32]);

    /// The move index of `mv`: `row * w + col` for a point of the board, and
    /// for a pass `Some(w * h)` if [`has_pass`](Encoder::has_pass), else
    /// `None`. `None` too for a point that is not on this board.
    fn encode_move(&self, mv: Move) -> Option<usize> {
        encode_move_on(self.size(), self.has_pass(), mv)
    }

    /// The inverse of [`encode_move`](Encoder::encode_move); `None` for an
    /// index at or past [`moves`](Encoder::moves).
    fn decode_move(&self, index: usize) -> Option<Move> {
        decode_move_on(self.size(), self.has_pass(), index)
    }
}

/// Names of the registered encoders, in the order oneplane, sevenplane,
/// simple, zero.
pub const ENCODER_NAMES: &[&str] = &[
    OnePlaneEncoder::NAME,
    SevenPlaneEncoder::NAME,
    SimpleEncoder::NAME,
    ZeroEncoder::NAME,
];

/// Why an encoder could not be made.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum EncoderError {
    /// No encoder is registered under `name`.
    #[error("unknown encoder {name:?}: the encoders are {}", ENCODER_NAMES.join(", "))]
    UnknownEncoder {
        /// The name that was asked for.
        name: String,
    },
}

/// The encoder registered under `name` (one of [`ENCODER_NAMES`], exactly)
/// for boards of `size`: the book's `get_encoder_by_name`.
pub fn encoder_by_name(name: &str, size: BoardSize) -> Result<Box<dyn Encoder>, EncoderError> {
    match name {
        OnePlaneEncoder::NAME => Ok(Box::new(OnePlaneEncoder::new(size))),
        SevenPlaneEncoder::NAME => Ok(Box::new(SevenPlaneEncoder::new(size))),
        SimpleEncoder::NAME => Ok(Box::new(SimpleEncoder::new(size))),
        ZeroEncoder::NAME => Ok(Box::new(ZeroEncoder::new(size))),
        _ => Err(EncoderError::UnknownEncoder {
            name: name.to_string(),
        }),
    }
}

/// The index of `point` within a plane of a board of `size`: `row * width +
/// col`. `point` must be on the board (checked in debug builds only, since
/// this sits in encoding loops).
#[inline]
pub fn point_index(size: BoardSize, point: Point) -> usize {
    debug_assert!(size.contains(point), "{point:?} is not on a {size} board");
    let (col, row) = size.col_row(point);
    row * size.width() + col
}

/// The point at plane index `index` of a board of `size`; `None` if `index` is
/// not below `width * height`.
#[inline]
pub fn index_point(size: BoardSize, index: usize) -> Option<Point> {
    let width = size.width();
    size.point(index % width, index / width)
}

/// [`Encoder::encode_move`] for an encoder on `size`, with or without a pass.
fn encode_move_on(size: BoardSize, has_pass: bool, mv: Move) -> Option<usize> {
    match mv {
        Move::Play(point) => size.contains(point).then(|| point_index(size, point)),
        Move::Pass => has_pass.then_some(size.points_count()),
    }
}

/// [`Encoder::decode_move`] for an encoder on `size`, with or without a pass.
fn decode_move_on(size: BoardSize, has_pass: bool, index: usize) -> Option<Move> {
    if index == size.points_count() && has_pass {
        Some(Move::Pass)
    } else {
        index_point(size, index).map(Move::Play)
    }
}

/// Checks what every `encode` relies on, with messages that say which
/// contract was broken rather than an index panic deep in a loop.
fn check_encode_args(encoder: &dyn Encoder, game: &Game, out: &[f32]) {
    assert_eq!(
        game.size(),
        encoder.size(),
        "{} encoder for {} boards given a {} game",
        encoder.name(),
        encoder.size(),
        game.size()
    );
    assert!(
        out.len() >= encoder.input_len(),
        "{} encoder needs {} values, given {}",
        encoder.name(),
        encoder.input_len(),
        out.len()
    );
}

/// Sets, in `out` (planes of `board`'s size, starting with plane 0), the
/// liberty planes shared by three encoders: a stone of `first` whose chain has
/// `n` liberties goes to plane `min(n, bands) - 1`, a stone of the other colour
/// to plane `bands + min(n, bands) - 1`. Only ones are written; the caller has
/// zeroed the planes.
fn set_liberty_planes(board: &Board, first: Color, bands: usize, out: &mut [f32]) {
    let points = board.size().points_count();
    for (index, point) in board.size().points().enumerate() {
        let Some(color) = board.stone(point) else {
            continue;
        };
        // A stone on the board always has a liberty, but clamp from below too
        // so that a broken board cannot index a plane before the first.
        let band = board.liberties(point).clamp(1, bands) - 1;
        let plane = if color == first { band } else { bands + band };
        out[plane * points + index] = 1.0;
    }
}

/// Sets a one at the simple-ko point in `plane` (a slice of one plane) if
/// `to_move` is the side barred from it: after a ko capture the capturer may
/// still fill the point, so only the opponent's input shows it.
fn set_ko_plane(board: &Board, to_move: Color, plane: &mut [f32]) {
    if let Some(ko) = board.ko_point() {
        if board.is_ko_retake(ko, to_move) {
            plane[point_index(board.size(), ko)] = 1.0;
        }
    }
}
