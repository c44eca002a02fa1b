//! The learned move model: the strengths (γ) of every feature value, read
//! from its text form, and the rating of candidate moves.

use super::*;

/// The strengths (γ) of every feature value.
#[derive(Clone, Debug)]
pub struct MoveModel {
    /// γ of each value of the small groups, by group index.
    small: [Vec<f32>; GROUPS],
    /// γ of the shapes the model knows, by canonical code.
    patterns: Vec<(u32, f32)>,
    /// γ of the shapes it does not know.
    other_pattern: f32,
    /// γ by shape code in any orientation (the known shapes in all eight).
    by_code: HashMap<u32, f32>,
    /// γ of the larger shapes it knows, by canonical key.
    shapes: Vec<(u64, f32)>,
    /// γ of the larger shapes it does not know.
    other_shape: f32,
    /// γ by larger shape key in any orientation.
    by_key: HashMap<u64, f32>,
}

/// The strengths of one shape group: those of the known shapes, by
/// canonical code, and the one the others share.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeStrengths<K> {
    /// γ of each known shape.
    pub known: Vec<(K, f32)>,
    /// γ of the others.
    pub other: f32,
}

impl MoveModel {
    /// A model from its parts: the γ of each small group's values (the
    /// shape groups' entries are ignored), of the 3×3 shapes and of the
    /// larger shapes.
    pub fn new(
        small: [Vec<f32>; GROUPS],
        patterns: ShapeStrengths<u32>,
        shapes: ShapeStrengths<u64>,
    ) -> Self {
        let mut by_code = HashMap::with_capacity(patterns.known.len() * 8);
        for &(code, gamma) in &patterns.known {
            for oriented in pattern_orientations(code) {
                by_code.insert(oriented, gamma);
            }
        }
        let mut by_key = HashMap::with_capacity(shapes.known.len() * 8);
        for &(key, gamma) in &shapes.known {
            for oriented in shape_orientations(key) {
                by_key.insert(oriented, gamma);
            }
        }
        MoveModel {
            small,
            patterns: patterns.known,
            other_pattern: patterns.other,
            by_code,
            shapes: shapes.known,
            other_shape: shapes.other,
            by_key,
        }
    }

    /// The model shipped with tengen, fitted on the professional records of
    /// Debian's `goban-original-games` (see docs/guide/training.md for the command).
    pub fn builtin() -> &'static MoveModel {
        static MODEL: OnceLock<MoveModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            MoveModel::parse(include_str!("../../data/move-model.txt"))
                .expect("the shipped move model is valid")
        })
    }

    /// The model in file `path`, read once per path and kept for the rest
    /// of the process (a bot made again with the same file shares it), so
    /// that searches hold it by plain reference.
    pub fn from_file(path: &std::path::Path) -> Result<&'static MoveModel, String> {
        static LOADED: OnceLock<std::sync::Mutex<HashMap<std::path::PathBuf, &'static MoveModel>>> =
            OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&model) = loaded.get(path) {
            return Ok(model);
        }
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("reading {}: {error}", path.display()))?;
        let model =
            MoveModel::parse(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let model: &'static MoveModel = Box::leak(Box::new(model));
        loaded.insert(path.to_path_buf(), model);
        Ok(model)
    }

    /// The strength of a move with these features.
    #[inline]
    pub fn strength(&self, features: &MoveFeatures) -> f32 {
        let mut gamma = self
            .by_code
            .get(&features.pattern)
            .copied()
            .unwrap_or(self.other_pattern);
        gamma *= self
            .by_key
            .get(&shape_key(features.shape, 3))
            .or_else(|| self.by_key.get(&shape_key(features.shape, 2)))
            .copied()
            .unwrap_or(self.other_shape);
        for group in 2..GROUPS {
            gamma *= self.small[group][features.values[group] as usize];
        }
        gamma
    }

    /// Number of 3×3 shapes with their own strength.
    pub fn known_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Number of larger shapes with their own strength.
    pub fn known_shapes(&self) -> usize {
        self.shapes.len()
    }

    /// The model as text: one `GROUP VALUE GAMMA` line per value; shapes by
    /// canonical code in hexadecimal (the larger ones with their radius in
    /// the top byte), `other` for the unknown ones.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# tengen move model: strength (gamma) of each move feature value, \
             fitted by minorization-maximization\n",
        );
        for group in &Group::ALL[2..] {
            for (value, gamma) in self.small[*group as usize].iter().enumerate() {
                let _ = writeln!(out, "{} {value} {gamma}", group.name());
            }
        }
        let _ = writeln!(out, "pattern other {}", self.other_pattern);
        for (code, gamma) in &self.patterns {
            let _ = writeln!(out, "pattern {code:05x} {gamma}");
        }
        let _ = writeln!(out, "shape other {}", self.other_shape);
        for (key, gamma) in &self.shapes {
            let _ = writeln!(out, "shape {key:x} {gamma}");
        }
        out
    }

    /// Reads a model written by [`MoveModel::to_text`].
    pub fn parse(text: &str) -> Result<MoveModel, ModelError> {
        let mut small: [Vec<Option<f32>>; GROUPS] =
            std::array::from_fn(|g| vec![None; Group::ALL[g].values()]);
        let mut patterns = ShapeStrengths::default();
        let mut other = None;
        let mut shapes = ShapeStrengths::default();
        let mut other_shape = None;
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| ModelError::Line {
                line: line_no,
                reason,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [group, value, gamma] = fields[..] else {
                return Err(bad("expected GROUP VALUE GAMMA".into()));
            };
            let gamma: f32 = gamma
                .parse()
                .ok()
                .filter(|g: &f32| g.is_finite() && *g > 0.0)
                .ok_or_else(|| bad(format!("{gamma:?} is not a positive strength")))?;
            let group =
                Group::from_name(group).ok_or_else(|| bad(format!("unknown group {group:?}")))?;
            if group == Group::Pattern {
                if value == "other" {
                    other = Some(gamma);
                } else {
                    let code = u32::from_str_radix(value, 16)
                        .ok()
                        .filter(|&c| c < 1 << 20 && canonical_pattern(c) == c)
                        .ok_or_else(|| bad(format!("{value:?} is not a canonical shape code")))?;
                    patterns.known.push((code, gamma));
                }
                continue;
            }
            if group == Group::Shape {
                if value == "other" {
                    other_shape = Some(gamma);
                } else {
                    let key = u64::from_str_radix(value, 16)
                        .ok()
                        .filter(|&k| {
                            let radius = k >> 56;
                            (radius == 2 || radius == 3)
                                && shape_key(k, radius) == k
                                && canonical_shape(k) == k
                        })
                        .ok_or_else(|| bad(format!("{value:?} is not a canonical shape key")))?;
                    shapes.known.push((key, gamma));
                }
                continue;
            }
            let slot = value
                .parse::<usize>()
                .ok()
                .and_then(|v| small[group as usize].get_mut(v))
                .ok_or_else(|| bad(format!("{value:?} is not a value of {}", group.name())))?;
            *slot = Some(gamma);
        }
        let mut gammas: [Vec<f32>; GROUPS] = Default::default();
        for group in &Group::ALL[2..] {
            let slots = &mut small[*group as usize];
            if group.is_optional() && slots.iter().all(Option::is_none) {
                slots.fill(Some(1.0));
            }
            for (value, gamma) in slots.iter().enumerate() {
                gammas[*group as usize].push(gamma.ok_or(ModelError::Missing {
                    group: group.name(),
                    value,
                })?);
            }
        }
        patterns.other = other.ok_or(ModelError::Missing {
            group: "pattern",
            value: 0,
        })?;
        shapes.other = other_shape.ok_or(ModelError::Missing {
            group: "shape",
            value: 0,
        })?;
        Ok(MoveModel::new(gammas, patterns, shapes))
    }
}
