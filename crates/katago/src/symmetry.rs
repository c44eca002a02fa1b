//! The eight symmetries of the board as KataGo numbers them: bit 0 flips
//! the rows, bit 1 the columns, bit 2 transposes (square boards only).
//! Inputs are turned into the symmetric frame before the network runs and
//! its spatial outputs turned back.

/// The number of symmetries.
pub const SYMMETRIES: u8 = 8;

/// Where each point of a `width` × `height` grid goes under `symmetry`:
/// `map[point] = destination`, both row-major. `reverse` gives the map for
/// outputs (from the symmetric frame back to the board).
pub fn point_map(symmetry: u8, width: usize, height: usize, reverse: bool) -> Vec<usize> {
    let transpose = symmetry & 4 != 0 && width == height;
    let (mut flip_x, mut flip_y) = (symmetry & 2 != 0, symmetry & 1 != 0);
    if transpose && !reverse {
        std::mem::swap(&mut flip_x, &mut flip_y);
    }
    let (w, h) = (width as isize, height as isize);
    let (mut row_base, mut row_stride, mut col_base, mut col_stride) = (0, w, 0, 1);
    if flip_y {
        row_base = (h - 1) * w;
        row_stride = -w;
    }
    if flip_x {
        col_base = w - 1;
        col_stride = -1;
    }
    if transpose {
        std::mem::swap(&mut row_stride, &mut col_stride);
    }
    let mut map = Vec::with_capacity(width * height);
    for y in 0..h {
        for x in 0..w {
            map.push((row_base + col_base + y * row_stride + x * col_stride) as usize);
        }
    }
    map
}

/// Copies `planes` planes of a grid from `src` to `dst` through `map`.
pub(crate) fn permute_planes(map: &[usize], planes: usize, src: &[f32], dst: &mut [f32]) {
    let points = map.len();
    for plane in 0..planes {
        let from = &src[plane * points..(plane + 1) * points];
        let to = &mut dst[plane * points..(plane + 1) * points];
        for (p, &v) in from.iter().enumerate() {
            to[map[p]] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_map_is_a_permutation_and_reverse_undoes_forward() {
        for (w, h) in [(9, 9), (19, 19), (5, 3)] {
            for symmetry in 0..SYMMETRIES {
                let forward = point_map(symmetry, w, h, false);
                let back = point_map(symmetry, w, h, true);
                let mut seen = vec![false; w * h];
                for &p in &forward {
                    assert!(!seen[p], "symmetry {symmetry} maps two points to {p}");
                    seen[p] = true;
                }
                for p in 0..w * h {
                    assert_eq!(back[forward[p]], p, "symmetry {symmetry} on {w}x{h}");
                }
            }
        }
    }

    #[test]
    fn flips_and_transpose_move_a_corner_where_expected() {
        // Point (x=1, y=0) on a 3x3 grid, row-major index 1.
        let at = |symmetry| point_map(symmetry, 3, 3, false)[1];
        assert_eq!(at(0), 1);
        assert_eq!(at(1), 7); // rows flipped: (1, 2)
        assert_eq!(at(2), 1); // columns flipped: (1, 0)
        assert_eq!(at(4), 3); // transposed: (0, 1)
    }
}
