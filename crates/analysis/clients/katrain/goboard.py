"""A small, independent Go board used to check the moves KaTrain plays.

Coordinates are KaTrain's (x from the left, y from the bottom, 0-based);
colours are "B" and "W". Captures, suicide and simple ko are checked; the
check is deliberately separate from KaTrain's own rules code.
"""


class IllegalMove(Exception):
    pass


class Board:
    def __init__(self, size_x, size_y):
        self.size_x = size_x
        self.size_y = size_y
        self.stones = {}  # (x, y) -> "B" | "W"
        self.ko_point = None  # point the side to move may not retake at

    def neighbours(self, point):
        x, y = point
        for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
            if 0 <= nx < self.size_x and 0 <= ny < self.size_y:
                yield (nx, ny)

    def chain_and_liberties(self, point):
        colour = self.stones[point]
        chain, liberties, todo = {point}, set(), [point]
        while todo:
            for n in self.neighbours(todo.pop()):
                occupant = self.stones.get(n)
                if occupant is None:
                    liberties.add(n)
                elif occupant == colour and n not in chain:
                    chain.add(n)
                    todo.append(n)
        return chain, liberties

    def place(self, colour, point):
        """A setup stone (SGF AB/AW): no captures, no ko."""
        self.stones[point] = colour
        self.ko_point = None

    def play(self, colour, point):
        """Plays a move (None is a pass); raises IllegalMove for an occupied
        point, a suicide or a simple ko retake. Returns the captured points."""
        if point is None:
            self.ko_point = None
            return set()
        x, y = point
        if not (0 <= x < self.size_x and 0 <= y < self.size_y):
            raise IllegalMove(f"{point} is off the {self.size_x}x{self.size_y} board")
        if point in self.stones:
            raise IllegalMove(f"{point} is occupied by {self.stones[point]}")
        if point == self.ko_point:
            raise IllegalMove(f"{point} retakes a ko at once")
        opponent = "W" if colour == "B" else "B"
        self.stones[point] = colour
        captured = set()
        for n in self.neighbours(point):
            if self.stones.get(n) == opponent:
                chain, liberties = self.chain_and_liberties(n)
                if not liberties:
                    captured |= chain
        for p in captured:
            del self.stones[p]
        chain, liberties = self.chain_and_liberties(point)
        if not liberties:
            del self.stones[point]
            for p in captured:
                self.stones[p] = opponent
            raise IllegalMove(f"{point} is a suicide for {colour}")
        single_capture = len(captured) == 1 and len(chain) == 1 and len(liberties) == 1
        self.ko_point = next(iter(captured)) if single_capture else None
        return captured

    def copy(self):
        other = Board(self.size_x, self.size_y)
        other.stones = dict(self.stones)
        other.ko_point = self.ko_point
        return other


def board_at(node):
    """The position at a KaTrain (pysgf) node, replayed from its root."""
    size_x, size_y = node.board_size
    board = Board(size_x, size_y)
    for n in node.nodes_from_root:
        for m in n.placements:
            board.place(m.player, m.coords)
        for m in n.moves:
            board.play(m.player, None if m.is_pass else m.coords)
    return board
