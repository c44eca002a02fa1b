//! `kata-raw-nn`: the bot's network on the current position, in KataGo's
//! format, so that tengen's numbers can be compared with KataGo's line by
//! line.

use tengen_core::{Color, Game};

use super::error::CommandResult;
use super::{CommandError, Engine};

/// A network the engine can show raw for `kata-raw-nn`, apart from the bot
/// that plays with it: bots answer moves, this answers what the network
/// says of a position.
pub trait RawNetwork {
    /// The network's answer for the side to move of `game`, as text in
    /// KataGo's `kata-raw-nn` format: one block for `symmetry` (0 to 7), or
    /// one for each of the eight when `None`; `optimism` overrides the
    /// policy optimism. `Err(reason)` when it cannot evaluate the position.
    fn raw_output(
        &self,
        game: &Game,
        symmetry: Option<u8>,
        optimism: Option<f32>,
    ) -> Result<String, String>;
}

impl Engine {
    /// `kata-raw-nn [COLOR] SYMMETRY|all [OPTIMISM]`: a colour other than
    /// the side to move evaluates the board with that colour to move (see
    /// [`tengen_core::Game::with_mover`]); `all` prints the eight symmetries one after the
    /// other; the optimism defaults to KataGo's 0.2.
    pub(super) fn kata_raw_nn(&self, args: &[&str]) -> CommandResult {
        let mut rest = args;
        let mut color = None;
        if let Some(first) = rest.first() {
            match first.to_ascii_lowercase().as_str() {
                "b" | "black" => color = Some(Color::Black),
                "w" | "white" => color = Some(Color::White),
                _ => {}
            }
            if color.is_some() {
                rest = &rest[1..];
            }
        }
        let (symmetry, optimism) = match rest {
            [symmetry] => (*symmetry, None),
            [symmetry, optimism] => (*symmetry, Some(*optimism)),
            _ => return Err(CommandError::Syntax),
        };
        let symmetry = match symmetry {
            "all" => None,
            s => match s.parse::<u8>() {
                Ok(s) if s < 8 => Some(s),
                _ => return Err(CommandError::Syntax),
            },
        };
        let optimism = match optimism {
            None => None,
            Some(text) => match text.parse::<f32>() {
                Ok(v) if (0.0..=1.0).contains(&v) => Some(v),
                _ => return Err(CommandError::Syntax),
            },
        };
        let game = match color {
            Some(color) if color != self.game.to_move() => self.game.with_mover(color),
            _ => self.game.clone(),
        };
        let network = self.network.as_ref().ok_or(CommandError::NoNetwork)?;
        network
            .raw_output(&game, symmetry, optimism)
            .map_err(CommandError::Network)
    }
}
