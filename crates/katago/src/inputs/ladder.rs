//! KataGo's ladder search: whether a chain in atari (or with two liberties,
//! attacker moving first) is captured by a sequence of ataris, with its node
//! budget, depth limit, ko and double-ko shortcuts and move ordering, and the
//! board scan that turns it into input features 14 to 17.

use super::board::{opp, KBoard, MoveRecord, BLACK, EMPTY, NULL_LOC, WHITE};

/// Nodes (moves played) one search may use before it gives up and answers
/// "not captured".
const NODE_BUDGET: usize = 25_000;

impl KBoard {
    /// For a chain with two liberties: the attacker's moves on those
    /// liberties after which the chain is ladder-captured (defender to
    /// move). `working` receives them when there are any; true if so.
    pub fn ladder_captured_attacker_first_2_libs(
        &mut self,
        loc: usize,
        buf: &mut Vec<usize>,
        working: &mut Vec<usize>,
    ) -> bool {
        if loc >= self.colors.len() {
            return false;
        }
        if self.colors[loc] != BLACK && self.colors[loc] != WHITE {
            return false;
        }
        if self.libs(loc) != 2 {
            return false;
        }
        let pla = self.colors[loc];
        let o = opp(pla);
        self.find_liberties(loc, buf, 0, 0);
        let move0 = buf[0];
        let move1 = buf[1];
        let mut works0 = false;
        let mut works1 = false;
        if self.is_legal(move0, o, false) {
            let record = self.play_recorded(move0, o);
            works0 = self.ladder_captured(loc, true, buf);
            self.undo(record);
        }
        if self.is_legal(move1, o, false) {
            let record = self.play_recorded(move1, o);
            works1 = self.ladder_captured(loc, true, buf);
            self.undo(record);
        }
        if works0 || works1 {
            working.clear();
            if works0 {
                working.push(move0);
            }
            if works1 {
                working.push(move1);
            }
            return true;
        }
        false
    }

    /// Whether the chain at `loc` (one liberty with `defender_first`, else
    /// at most two) is captured in a ladder. Leaves the stones as they
    /// were, though not necessarily the chain lists.
    pub fn ladder_captured(
        &mut self,
        loc: usize,
        defender_first: bool,
        buf: &mut Vec<usize>,
    ) -> bool {
        if loc >= self.colors.len() {
            return false;
        }
        if self.colors[loc] != BLACK && self.colors[loc] != WHITE {
            return false;
        }
        let libs = self.libs(loc);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        let pla = self.colors[loc];
        let o = opp(pla);

        // At the root the defender may take any ko.
        let ko_saved = self.ko_loc;
        if defender_first {
            self.ko_loc = NULL_LOC;
        }

        let stack_size = (self.x_size * self.y_size * 3 / 2 + 1) as isize;
        let n = stack_size as usize + 1;
        let mut list_start = vec![0usize; n];
        let mut list_len = vec![0usize; n];
        let mut list_cur = vec![0isize; n];
        let mut records = vec![MoveRecord::default(); n];
        let mut sp: isize = 0;
        let mut nodes = 0usize;

        list_cur[0] = -1;
        list_start[0] = 0;
        list_len[0] = 0;
        let mut ret = false;
        let mut from_deeper = false;

        loop {
            if sp <= -1 {
                self.ko_loc = ko_saved;
                return ret;
            }
            if sp >= stack_size - 1 {
                ret = true;
                from_deeper = true;
                sp -= 1;
                continue;
            }
            if nodes >= NODE_BUDGET {
                sp -= 1;
                while sp >= 0 {
                    self.undo(records[sp as usize]);
                    sp -= 1;
                }
                return false;
            }
            let s = sp as usize;
            let is_defender = defender_first == s.is_multiple_of(2);

            if list_cur[s] == -1 {
                match self.ladder_node(loc, pla, is_defender, buf, list_start[s]) {
                    LadderNode::Decided(captured) => {
                        ret = captured;
                        from_deeper = true;
                        sp -= 1;
                        continue;
                    }
                    LadderNode::Moves(len) => {
                        list_len[s] = len;
                        list_cur[s] = 0;
                    }
                }
            } else {
                if from_deeper {
                    self.undo(records[s]);
                }
                if is_defender && !ret {
                    from_deeper = true;
                    sp -= 1;
                    continue;
                }
                if !is_defender && ret {
                    from_deeper = true;
                    sp -= 1;
                    continue;
                }
                list_cur[s] += 1;
            }

            if list_cur[s] as usize >= list_len[s] {
                ret = is_defender;
                from_deeper = true;
                sp -= 1;
                continue;
            }

            let mv = buf[list_start[s] + list_cur[s] as usize];
            let p = if is_defender { pla } else { o };
            if !self.is_legal(mv, p, false) {
                ret = is_defender;
                from_deeper = false;
                continue;
            }
            records[s] = self.play_recorded(mv, p);
            nodes += 1;
            sp += 1;
            let t = sp as usize;
            list_cur[t] = -1;
            list_start[t] = list_start[t - 1] + list_len[t - 1];
            list_len[t] = 0;
        }
    }

    /// A new node of the ladder search on `pla`'s chain at `loc`: decided
    /// without a move, or the moves to try, written to `buf` from `start`.
    #[inline]
    fn ladder_node(
        &mut self,
        loc: usize,
        pla: u8,
        is_defender: bool,
        buf: &mut Vec<usize>,
        start: usize,
    ) -> LadderNode {
        let libs = self.libs(loc);
        if !is_defender && libs <= 1 {
            return LadderNode::Decided(true);
        }
        if !is_defender && libs >= 3 {
            return LadderNode::Decided(false);
        }
        if is_defender && libs >= 2 {
            return LadderNode::Decided(false);
        }
        if is_defender && self.ko_loc != NULL_LOC {
            return LadderNode::Decided(false);
        }
        if is_defender {
            self.defender_moves(loc, pla, buf, start)
        } else {
            self.attacker_moves(loc, pla, buf, start)
        }
    }

    /// The defender's moves at a node (captures that gain liberties, then
    /// its liberty), unless the last of them decides the node.
    #[inline]
    fn defender_moves(
        &mut self,
        loc: usize,
        pla: u8,
        buf: &mut Vec<usize>,
        start: usize,
    ) -> LadderNode {
        let mut len = self.find_liberty_gaining_captures(loc, buf, start, start);
        len += self.find_liberties(loc, buf, start, start + len);
        let (lower, upper) = self.bound_num_libs_after_play(buf[start + len - 1], pla);
        if lower >= 3 {
            return LadderNode::Decided(false);
        }
        if len == 1 && upper <= 1 {
            return LadderNode::Decided(true);
        }
        LadderNode::Moves(len)
    }

    /// The attacker's moves at a node (the defender's two liberties, the
    /// more promising first, or only the one that can work), unless the
    /// liberties decide the node.
    #[inline]
    fn attacker_moves(
        &mut self,
        loc: usize,
        pla: u8,
        buf: &mut Vec<usize>,
        start: usize,
    ) -> LadderNode {
        let o = opp(pla);
        let mut len = self.find_liberties(loc, buf, start, start);
        debug_assert_eq!(len, 2);
        let mut libs0 = self.num_immediate_libs(buf[start]);
        let mut libs1 = self.num_immediate_libs(buf[start + 1]);
        // Both liberties are ko mouths the defender cannot
        // usefully connect at: call it captured.
        if libs0 == 0
            && libs1 == 0
            && self.would_be_ko_capture(buf[start], o)
            && self.would_be_ko_capture(buf[start + 1], o)
            && self.num_libs_after_play(buf[start], pla, 3) <= 2
            && self.num_libs_after_play(buf[start + 1], pla, 3) <= 2
            && !self.has_liberty_gaining_captures(loc)
        {
            return LadderNode::Decided(true);
        }
        if !self.is_adjacent(buf[start], buf[start + 1]) {
            if libs0 >= 3 && libs1 >= 3 {
                return LadderNode::Decided(false);
            } else if libs0 >= 3 {
                len = 1;
            } else if libs1 >= 3 {
                buf[start] = buf[start + 1];
                len = 1;
            }
        }
        if len > 1 {
            libs0 = libs0 * 2 + self.heuristic_connection_libs_x2(buf[start], pla);
            libs1 = libs1 * 2 + self.heuristic_connection_libs_x2(buf[start + 1], pla);
            if libs1 > libs0 {
                buf.swap(start, start + 1);
            }
        }
        LadderNode::Moves(len)
    }
}

/// What a node of the ladder search finds on entry.
enum LadderNode {
    /// Decided without a move: whether the chain is captured.
    Decided(bool),
    /// This many moves to try, from the node's start in the move list.
    Moves(usize),
}

/// Scans the board top row first, left to right, and calls `f(loc,
/// working_moves)` for every stone of a chain with one or two liberties that
/// is ladder-captured (attacker first for two liberties). Each chain is
/// searched once, on a copy of the board; later stones of a chain already
/// found captured get an empty move list.
pub(crate) fn iter_ladders(board: &KBoard, mut f: impl FnMut(usize, &[usize])) {
    let mut solved: Vec<(usize, bool)> = Vec::new();
    let mut copy = board.clone();
    let mut buf: Vec<usize> = Vec::new();
    let mut working: Vec<usize> = Vec::new();
    for y in 0..board.y_size {
        for x in 0..board.x_size {
            let loc = board.loc(x, y);
            let stone = board.colors[loc];
            if stone == EMPTY {
                continue;
            }
            let libs = board.libs(loc);
            if libs != 1 && libs != 2 {
                continue;
            }
            let head = board.chain_head[loc];
            if let Some(&(_, value)) = solved.iter().find(|(h, _)| *h == head) {
                if value {
                    working.clear();
                    f(loc, &working);
                }
                continue;
            }
            let laddered = if libs == 1 {
                copy.ladder_captured(loc, true, &mut buf)
            } else {
                working.clear();
                copy.ladder_captured_attacker_first_2_libs(loc, &mut buf, &mut working)
            };
            solved.push((head, laddered));
            if laddered {
                f(loc, &working);
            }
        }
    }
}
