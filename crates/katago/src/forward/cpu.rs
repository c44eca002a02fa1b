//! Which arithmetic the forward pass runs on: what the CPU offers, found
//! once at run time, and the choice a [`Precision`] setting makes from it.
//! A path the CPU lacks is never chosen, so no build depends on the
//! instruction sets of the machine it runs on.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::bf16::Bf16Path;
use super::int16::Int16Path;
use super::int8::Int8Path;

/// The instruction sets the forward pass can use, as found on this CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// AVX-512 with `VDPBF16PS` (AVX-512-BF16), and AVX-512-DQ (which
    /// every CPU with it has) for `VREDUCEPS`.
    pub avx512_bf16: bool,
    /// AMX tiles with `TDPBF16PS`, and the operating system's permission
    /// to use their state.
    pub amx_bf16: bool,
    /// AVX-512 with `VPDPBUSD` (AVX-512-VNNI): 8-bit integer products.
    pub avx512_vnni: bool,
    /// AMX tiles with `TDPBUSD` (AMX-INT8) and the tile state, beside
    /// AVX-512-VNNI (which does the products' edges).
    pub amx_int8: bool,
    /// `VPDPBUSD` on 256-bit registers (AVX-VNNI, with AVX2 and FMA): the
    /// int8 products of CPUs without AVX-512.
    pub avx_vnni: bool,
    /// AVX-512F: f32 products on 512-bit registers.
    pub avx512f: bool,
    /// `VDPBF16PS` does twice the multiply-adds a cycle of an f32 fused
    /// multiply-add, as on AMD's cores (Zen 4 and later). On Intel's cores
    /// without AMX it does as many, and f32 on 512-bit registers is faster
    /// than bf16 with its rounding and splitting (`docs/performance.md`),
    /// so `auto` takes f32 there.
    pub fast_bf16_dot: bool,
}

impl Features {
    /// This CPU's, found on the first call (which on Linux also asks the
    /// kernel for AMX's tile state).
    pub fn detect() -> Features {
        static FEATURES: OnceLock<Features> = OnceLock::new();
        *FEATURES.get_or_init(detect_now)
    }

    /// The units these features allow, fastest first; f32 is always there.
    pub fn units(&self) -> Vec<Unit> {
        let mut units = Vec::new();
        if self.amx_bf16 {
            units.push(Unit::AmxBf16);
        }
        if self.avx512_bf16 {
            units.push(Unit::Avx512Bf16);
        }
        units.push(Unit::F32);
        units
    }
}

#[cfg(target_arch = "x86_64")]
fn detect_now() -> Features {
    let cap = KernelCap::from_env();
    let avx512_bf16 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bf16")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && cap >= KernelCap::Avx512Bf16;
    let avx512_vnni = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512vnni")
        && cap >= KernelCap::Avx512Bf16;
    Features {
        avx512_bf16,
        // The AMX paths do their edges on AVX-512-BF16 and -VNNI.
        amx_bf16: avx512_bf16 && cap >= KernelCap::Amx && amx_usable(AMX_BF16),
        avx512_vnni,
        amx_int8: avx512_vnni && cap >= KernelCap::Amx && amx_usable(AMX_INT8),
        avx_vnni: std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("avxvnni"),
        avx512f: std::arch::is_x86_feature_detected!("avx512f") && cap >= KernelCap::Avx512Bf16,
        fast_bf16_dot: avx512_bf16 && is_amd(),
    }
}

/// Whether the CPU's vendor is AMD (CPUID leaf 0's "AuthenticAMD").
#[cfg(target_arch = "x86_64")]
fn is_amd() -> bool {
    let leaf0 = std::arch::x86_64::__cpuid(0);
    let name = [leaf0.ebx, leaf0.edx, leaf0.ecx];
    name.iter()
        .flat_map(|word| word.to_le_bytes())
        .eq(*b"AuthenticAMD")
}

/// The most the forward pass may use, from the environment variable
/// `TENGEN_KERNEL`, so that any machine can measure the paths of lesser
/// CPUs: `avx2` (f32 products, element-wise loops on 256-bit vectors at
/// most, the `gemm` crate's 256-bit kernels, and int8 only on AVX-VNNI's
/// 256-bit registers), `avx512-bf16` (no AMX; AVX-512-VNNI allowed), or
/// `auto` (everything the CPU has; also when unset). Another value is ignored, and `tengen bench katago` says
/// which cap is in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KernelCap {
    /// f32 products, AVX2 at most.
    Avx2,
    /// No AMX.
    Avx512Bf16,
    /// Everything the CPU has.
    Amx,
}

impl KernelCap {
    /// The cap `TENGEN_KERNEL` sets, read once.
    pub fn from_env() -> KernelCap {
        static CAP: OnceLock<KernelCap> = OnceLock::new();
        *CAP.get_or_init(|| {
            std::env::var("TENGEN_KERNEL")
                .ok()
                .and_then(|v| KernelCap::parse(&v))
                .unwrap_or(KernelCap::Amx)
        })
    }

    /// `avx2`, `avx512-bf16`, or `auto` (any case).
    pub fn parse(value: &str) -> Option<KernelCap> {
        match value.to_ascii_lowercase().as_str() {
            "avx2" => Some(KernelCap::Avx2),
            "avx512-bf16" => Some(KernelCap::Avx512Bf16),
            "auto" => Some(KernelCap::Amx),
            _ => None,
        }
    }

    /// Its spelling.
    pub fn name(self) -> &'static str {
        match self {
            KernelCap::Avx2 => "avx2",
            KernelCap::Avx512Bf16 => "avx512-bf16",
            KernelCap::Amx => "auto",
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_now() -> Features {
    Features::default()
}

/// AMX-BF16's bit in CPUID leaf 7's EDX.
#[cfg(target_arch = "x86_64")]
const AMX_BF16: u32 = 1 << 22;
/// AMX-INT8's bit in CPUID leaf 7's EDX.
#[cfg(target_arch = "x86_64")]
const AMX_INT8: u32 = 1 << 25;

/// Whether the CPU has AMX-TILE and the AMX instructions of `unit` (a bit
/// of CPUID leaf 7's EDX) and the kernel lets this process use the tile
/// data (Linux asks each process to request it).
#[cfg(target_arch = "x86_64")]
fn amx_usable(unit: u32) -> bool {
    use std::arch::x86_64::__cpuid_count;
    // CPUID exists on every x86-64 CPU; leaf 7 is read only where it exists.
    let leaf0 = __cpuid_count(0, 0);
    if leaf0.eax < 7 {
        return false;
    }
    let leaf7 = __cpuid_count(7, 0);
    let amx_tile = leaf7.edx & (1 << 24) != 0;
    leaf7.edx & unit != 0 && amx_tile && request_tile_state()
}

/// Asks Linux for permission to use AMX's tile data
/// (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`); without it the
/// first tile instruction kills the process.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn request_tile_state() -> bool {
    const SYS_ARCH_PRCTL: i64 = 158;
    const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
    const XFEATURE_XTILEDATA: i64 = 18;
    let result: i64;
    // SAFETY: arch_prctl with this request changes only which register
    // state the process may use; the syscall clobbers rcx and r11.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") SYS_ARCH_PRCTL => result,
            in("rdi") ARCH_REQ_XCOMP_PERM,
            in("rsi") XFEATURE_XTILEDATA,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    result == 0
}

/// Other systems: AMX is not used.
#[cfg(all(target_arch = "x86_64", not(target_os = "linux")))]
fn request_tile_state() -> bool {
    false
}

/// The units a network's matrix products run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// f32 throughout (the `gemm` crate's kernels).
    F32,
    /// bfloat16 products with f32 sums on AVX-512-BF16 (`VDPBF16PS`).
    Avx512Bf16,
    /// bfloat16 products with f32 sums on AMX tiles (`TDPBF16PS`).
    AmxBf16,
    /// The same bfloat16 products in plain Rust, any CPU: the reference the
    /// bf16 units are checked against, far too slow to play with; for
    /// measuring the accuracy of bf16 anywhere. Never chosen by a
    /// [`Precision`].
    PortableBf16,
}

impl Unit {
    /// The bf16 implementation behind this unit, if it is one.
    pub(crate) fn bf16_path(self) -> Option<Bf16Path> {
        match self {
            Unit::F32 => None,
            Unit::Avx512Bf16 => Some(Bf16Path::Avx512),
            Unit::AmxBf16 => Some(Bf16Path::Amx),
            Unit::PortableBf16 => Some(Bf16Path::Portable),
        }
    }

    /// Whether a CPU with `features` runs it (the portable unit runs
    /// anywhere).
    pub fn runs_on(self, features: Features) -> bool {
        match self {
            Unit::F32 | Unit::PortableBf16 => true,
            Unit::Avx512Bf16 => features.avx512_bf16,
            Unit::AmxBf16 => features.amx_bf16,
        }
    }

    /// Its name, as logs and benchmarks print it.
    pub fn name(self) -> &'static str {
        match self {
            Unit::F32 => "f32",
            Unit::Avx512Bf16 => "AVX-512-BF16",
            Unit::AmxBf16 => "AMX-BF16",
            Unit::PortableBf16 => "portable bf16",
        }
    }
}

/// The units a network's 8-bit integer products run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Int8Unit {
    /// Plain Rust, any CPU: the reference the others are checked against,
    /// far too slow to play with; for measuring accuracy anywhere.
    Portable,
    /// `VPDPBUSD` on 512-bit registers (AVX-512-VNNI).
    Avx512Vnni,
    /// `TDPBUSD` on AMX tiles (AMX-INT8), the edges on AVX-512-VNNI.
    AmxInt8,
    /// `VPDPBUSD` on 256-bit registers (AVX-VNNI).
    AvxVnni,
}

impl Int8Unit {
    /// The implementation behind this unit.
    pub(crate) fn path(self) -> Int8Path {
        match self {
            Int8Unit::Portable => Int8Path::Portable,
            Int8Unit::Avx512Vnni => Int8Path::Avx512Vnni,
            Int8Unit::AmxInt8 => Int8Path::AmxInt8,
            Int8Unit::AvxVnni => Int8Path::AvxVnni,
        }
    }

    /// Whether a CPU with `features` runs it (the portable unit runs
    /// anywhere).
    pub fn runs_on(self, features: Features) -> bool {
        match self {
            Int8Unit::Portable => true,
            Int8Unit::Avx512Vnni => features.avx512_vnni,
            Int8Unit::AmxInt8 => features.amx_int8,
            Int8Unit::AvxVnni => features.avx_vnni,
        }
    }

    /// Its name, as logs and benchmarks print it.
    pub fn name(self) -> &'static str {
        match self {
            Int8Unit::Portable => "portable int8",
            Int8Unit::Avx512Vnni => "AVX-512-VNNI",
            Int8Unit::AmxInt8 => "AMX-INT8",
            Int8Unit::AvxVnni => "AVX-VNNI",
        }
    }
}

/// The units a network's 16-bit integer products run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Int16Unit {
    /// Plain Rust, any CPU: the reference the other is checked against,
    /// far too slow to play with; for measuring accuracy anywhere.
    Portable,
    /// `VPDPWSSD` on 512-bit registers (AVX-512-VNNI).
    Avx512Vnni,
}

impl Int16Unit {
    /// The implementation behind this unit.
    pub(crate) fn path(self) -> Int16Path {
        match self {
            Int16Unit::Portable => Int16Path::Portable,
            Int16Unit::Avx512Vnni => Int16Path::Avx512Vnni,
        }
    }

    /// Whether a CPU with `features` runs it (the portable unit runs
    /// anywhere).
    pub fn runs_on(self, features: Features) -> bool {
        match self {
            Int16Unit::Portable => true,
            Int16Unit::Avx512Vnni => features.avx512_vnni,
        }
    }

    /// Its name, as logs and benchmarks print it.
    pub fn name(self) -> &'static str {
        match self {
            Int16Unit::Portable => "portable int16",
            Int16Unit::Avx512Vnni => "AVX-512-VNNI",
        }
    }
}

/// How a bf16 unit takes the activations of a matrix product (the weights
/// are always rounded once, when the layer is first packed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bf16Rounding {
    /// Rounded once to bf16: one pass, about 8 bits kept.
    Once,
    /// Split into the bf16 rounding and the rounding of what it lost, each
    /// multiplied in its own pass: twice the work, about 16 bits kept.
    Split,
    /// Convolutions split, matrix layers (attention, feed-forward) rounded
    /// once. In the transformer networks (`b10c384h6nbttflrs`) the
    /// convolutions are the 1×1 bottleneck layers that enter and leave the
    /// residual stream: a ninth of the work, and most of the error of one
    /// rounding (`docs/performance.md`). Attention's output projection,
    /// which also adds to the residual stream, and attention's queries
    /// (a small product whose error the softmax amplifies) are split too.
    /// Its win rate error sits at the bound on every unit, so no precision
    /// chooses it; it is measured beside the others.
    SplitConvolutions,
}

impl Bf16Rounding {
    /// Whether a convolution (`true`) or a matrix layer (`false`) splits
    /// its activations.
    pub(crate) fn splits(self, convolution: bool) -> bool {
        match self {
            Bf16Rounding::Once => false,
            Bf16Rounding::Split => true,
            Bf16Rounding::SplitConvolutions => convolution,
        }
    }
}

/// The arithmetic of a network's matrix products: the unit, and on bf16
/// units how the activations are rounded. Element-wise layers, attention's
/// score products and the heads' last layers are f32 in every case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// The units.
    pub unit: Unit,
    /// The activations' rounding (bf16 units only).
    pub rounding: Bf16Rounding,
    /// Where set, every matrix layer and 1×1 convolution runs in 8-bit
    /// integers on this unit: weights quantised per output channel,
    /// activations per row. Where `rounding` splits a layer's activations,
    /// both of its operands are quantised twice (the value, then what that
    /// lost on a finer step: about 15 bits each, three products).
    /// Attention's score and
    /// value products and wider convolutions stay on `unit`.
    pub int8: Option<Int8Unit>,
    /// Where set (and `int8` is not), the same layers run in 16-bit
    /// integers on this unit, one product each: weights quantised per
    /// output channel, activations per row, to 13 bits with the sign.
    pub int16: Option<Int16Unit>,
}

impl Kernel {
    /// f32 throughout.
    pub const F32: Kernel = Kernel {
        unit: Unit::F32,
        rounding: Bf16Rounding::Once,
        int8: None,
        int16: None,
    };

    /// A bf16 (or f32) kernel with no int8 layers.
    pub fn bf16(unit: Unit, rounding: Bf16Rounding) -> Kernel {
        Kernel {
            unit,
            rounding,
            int8: None,
            int16: None,
        }
    }

    /// Whether its products are rounded to bf16.
    pub fn is_bf16(self) -> bool {
        self.unit != Unit::F32
    }

    /// Whether attention's queries are split before the scores' product:
    /// wherever activations are split, as the scores' rounding error,
    /// through the softmax, is most of what bf16 attention costs in
    /// accuracy; but not beside int8's products on `VDPBF16PS`, where the
    /// queries rounded once keep the network well inside the bounds (win
    /// rate error p99 0.0068, top move 99.3%) and save a twentieth of the
    /// pass (`docs/performance.md`). On AMX, whose sums round otherwise,
    /// int8 keeps them split, as measured.
    pub(crate) fn splits_queries(self) -> bool {
        let integers = self.int8.is_some() || self.int16.is_some();
        let integers_on_avx512 = integers && self.unit == Unit::Avx512Bf16;
        self.rounding != Bf16Rounding::Once && !integers_on_avx512
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(int16), None) = (self.int16, self.int8) {
            let rest = Kernel {
                int16: None,
                ..*self
            };
            return write!(f, "int16 ({}), else {rest}", int16.name());
        }
        if let Some(int8) = self.int8 {
            let rest = Kernel {
                int8: None,
                int16: None,
                ..*self
            };
            let split = match self.rounding {
                Bf16Rounding::Once => "",
                Bf16Rounding::Split => ", split",
                Bf16Rounding::SplitConvolutions => ", convolutions split",
            };
            return write!(f, "int8{split} ({}), else {rest}", int8.name());
        }
        match (self.unit, self.rounding) {
            (Unit::F32, _) => f.write_str("f32"),
            (unit, Bf16Rounding::Once) => write!(f, "bf16 ({})", unit.name()),
            (unit, Bf16Rounding::Split) => write!(f, "bf16, split activations ({})", unit.name()),
            (unit, Bf16Rounding::SplitConvolutions) => {
                write!(f, "bf16, split convolution inputs ({})", unit.name())
            }
        }
    }
}

/// The precision a network is asked to run at (the `precision` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// The fastest arithmetic whose accuracy meets the bounds of
    /// `docs/performance.md`: on AMX bf16 products with every activation
    /// split ([`Bf16Rounding::Split`]); on AVX-512-BF16 with
    /// [`Features::fast_bf16_dot`] (AMD's cores) [`Precision::Int16`]'s
    /// kernel where the CPU has AVX-512-VNNI, else the same split bf16;
    /// elsewhere f32.
    #[default]
    Auto,
    /// f32 throughout, KataGo's own answers to float rounding.
    F32,
    /// bf16 products of one rounding each (f32 sums), the fastest and a
    /// little less accurate; f32 where the CPU has no bf16 units.
    Bf16,
    /// Every matrix layer and 1×1 convolution in 8-bit integers, each
    /// operand split in two quantisations, where the CPU has AVX-512-VNNI
    /// (on AMX-INT8's tiles where it has those too; attention's scores and
    /// wider convolutions on the bf16 units, split, or in f32); `auto`
    /// elsewhere. As accurate as `auto` (`docs/performance.md`); a split
    /// product is three integer products against a split bf16 product's
    /// two, so it pays where the integer units multiply more than one and
    /// a half times the bf16 ones' values: on AMD's cores (where int16's
    /// one product is faster still); on AMX the two precisions are even.
    Int8,
    /// Every matrix layer and 1×1 convolution in 16-bit integers (13 bits
    /// with the sign), one product each, where the CPU has AVX-512-VNNI
    /// (the rest as [`Precision::Int8`] runs it); `auto` elsewhere. As
    /// many products an instruction as bf16's, of about 13 bits a value
    /// against 8: as accurate as int8's three products and as fast as
    /// bf16's one rounding on AMD's cores, where `auto` takes it.
    Int16,
}

impl Precision {
    /// Every precision, in the order the help lists them.
    pub const ALL: [Precision; 5] = [
        Precision::Auto,
        Precision::F32,
        Precision::Bf16,
        Precision::Int8,
        Precision::Int16,
    ];

    /// The setting's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Auto => "auto",
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
            Precision::Int16 => "int16",
        }
    }

    /// The kernel this precision runs on a CPU with `features`: never one
    /// the CPU lacks.
    pub fn kernel(self, features: Features) -> Kernel {
        let unit = features.units()[0];
        match self {
            Precision::F32 => Kernel::F32,
            // AMX rounds its sums otherwise than `VDPBF16PS`: with the
            // convolution inputs alone split its win rate error is outside
            // the bound (`docs/performance.md`), so every input is split.
            Precision::Auto if unit == Unit::AmxBf16 => Kernel::bf16(unit, Bf16Rounding::Split),
            // On `VDPBF16PS` too the convolution inputs alone split leave
            // the win rate error at the bound (p99 0.0100 to 0.0110 in five
            // runs); every input split meets it, and int16's products are
            // as accurate in one product, as fast as bf16's one rounding
            // (`docs/performance.md`).
            Precision::Auto if unit != Unit::F32 && features.fast_bf16_dot => {
                if features.avx512_vnni {
                    Precision::Int16.kernel(features)
                } else {
                    Kernel::bf16(unit, Bf16Rounding::Split)
                }
            }
            Precision::Auto => Kernel::F32,
            Precision::Bf16 => Kernel::bf16(unit, Bf16Rounding::Once),
            Precision::Int8 if features.avx512_vnni || features.avx_vnni => Kernel {
                unit,
                rounding: Bf16Rounding::Split,
                int8: Some(if features.amx_int8 {
                    Int8Unit::AmxInt8
                } else if features.avx512_vnni {
                    Int8Unit::Avx512Vnni
                } else {
                    Int8Unit::AvxVnni
                }),
                int16: None,
            },
            Precision::Int8 => Precision::Auto.kernel(features),
            Precision::Int16 if features.avx512_vnni => Kernel {
                unit,
                rounding: Bf16Rounding::Split,
                int8: None,
                int16: Some(Int16Unit::Avx512Vnni),
            },
            Precision::Int16 => Precision::Auto.kernel(features),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A precision that is not one of [`Precision::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown precision {0:?} (expected auto, f32, bf16, int8 or int16)")]
pub struct UnknownPrecision(pub String);

impl FromStr for Precision {
    type Err = UnknownPrecision;

    fn from_str(s: &str) -> Result<Precision, UnknownPrecision> {
        Precision::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownPrecision(s.to_string()))
    }
}

#[cfg(test)]
mod tests;
