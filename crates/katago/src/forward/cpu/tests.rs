//! Which kernel each precision chooses on every combination of features.

use super::{Bf16Rounding, Features, Int16Unit, Int8Unit, Kernel, Precision, Unit};

fn all_features() -> Vec<Features> {
    let mut all = Vec::new();
    for avx512_bf16 in [false, true] {
        for amx_bf16 in [false, true] {
            for avx512_vnni in [false, true] {
                for fast_bf16_dot in [false, true] {
                    all.push(Features {
                        avx512_bf16,
                        amx_bf16,
                        avx512_vnni,
                        amx_int8: amx_bf16 && avx512_vnni,
                        avx_vnni: fast_bf16_dot,
                        avx512f: avx512_bf16 || avx512_vnni,
                        fast_bf16_dot,
                    });
                }
            }
        }
    }
    all
}

fn allowed(unit: Unit, features: Features) -> bool {
    match unit {
        Unit::F32 => true,
        Unit::Avx512Bf16 => features.avx512_bf16,
        Unit::AmxBf16 => features.amx_bf16,
        Unit::PortableBf16 => false,
    }
}

#[test]
fn no_precision_chooses_a_kernel_the_cpu_lacks() {
    for features in all_features() {
        for precision in Precision::ALL {
            let kernel = precision.kernel(features);
            assert!(
                allowed(kernel.unit, features),
                "{precision} chose {kernel} on {features:?}"
            );
            assert!(
                kernel.int8.is_none_or(|unit| unit.runs_on(features)),
                "{precision} chose {kernel} on {features:?}"
            );
            assert_ne!(kernel.int8, Some(Int8Unit::Portable), "never chosen");
            assert!(
                kernel.int16.is_none_or(|unit| unit.runs_on(features)),
                "{precision} chose {kernel} on {features:?}"
            );
            assert_ne!(kernel.int16, Some(Int16Unit::Portable), "never chosen");
            let integers = kernel.int8.is_some() || kernel.int16.is_some();
            assert!(kernel.is_bf16() || integers || kernel == Kernel::F32);
        }
        for unit in features.units() {
            assert!(allowed(unit, features), "{unit:?} listed on {features:?}");
        }
    }
}

#[test]
fn the_fastest_available_kernel_is_chosen() {
    let none = Features::default();
    let avx512 = Features {
        avx512_bf16: true,
        amx_bf16: false,
        avx512_vnni: false,
        amx_int8: false,
        avx_vnni: false,
        avx512f: true,
        fast_bf16_dot: true,
    };
    let intel_avx512 = Features {
        fast_bf16_dot: false,
        ..avx512
    };
    let amx = Features {
        avx512_bf16: true,
        amx_bf16: true,
        avx512_vnni: true,
        amx_int8: true,
        avx_vnni: true,
        avx512f: true,
        fast_bf16_dot: false,
    };
    let vnni = Features {
        avx512_vnni: true,
        ..Features::default()
    };
    let bf16 = Kernel::bf16;
    // int8's kernel: the int8 unit, the rest split on `unit`.
    let with_int8 = |int8, unit| Kernel {
        int8: Some(int8),
        ..bf16(unit, Bf16Rounding::Split)
    };
    assert_eq!(Precision::Int8.kernel(none), Kernel::F32);
    assert_eq!(
        Precision::Int8.kernel(avx512),
        Precision::Auto.kernel(avx512)
    );
    assert_eq!(
        Precision::Int8.kernel(amx),
        with_int8(Int8Unit::AmxInt8, Unit::AmxBf16)
    );
    let avx_vnni = Features {
        avx_vnni: true,
        ..Features::default()
    };
    assert_eq!(
        Precision::Int8.kernel(avx_vnni),
        with_int8(Int8Unit::AvxVnni, Unit::F32)
    );
    assert_eq!(Precision::Auto.kernel(avx_vnni), Kernel::F32);
    let amx_bf16_only = Features {
        amx_int8: false,
        ..amx
    };
    assert_eq!(
        Precision::Int8.kernel(amx_bf16_only),
        with_int8(Int8Unit::Avx512Vnni, Unit::AmxBf16)
    );
    assert_eq!(
        Precision::Int8.kernel(vnni),
        with_int8(Int8Unit::Avx512Vnni, Unit::F32)
    );
    assert_eq!(Precision::Auto.kernel(none), Kernel::F32);
    assert_eq!(Precision::Bf16.kernel(none), Kernel::F32);
    assert_eq!(
        Precision::Auto.kernel(avx512),
        bf16(Unit::Avx512Bf16, Bf16Rounding::Split)
    );
    let amd = Features {
        avx512_vnni: true,
        ..avx512
    };
    let with_int16 = |unit| Kernel {
        int16: Some(Int16Unit::Avx512Vnni),
        ..bf16(unit, Bf16Rounding::Split)
    };
    assert_eq!(Precision::Auto.kernel(amd), with_int16(Unit::Avx512Bf16));
    assert_eq!(Precision::Auto.kernel(amd), Precision::Int16.kernel(amd));
    assert_eq!(
        Precision::Int8.kernel(amd),
        with_int8(Int8Unit::Avx512Vnni, Unit::Avx512Bf16)
    );
    // int16 where the CPU has AVX-512-VNNI, auto elsewhere.
    assert_eq!(Precision::Int16.kernel(amx), with_int16(Unit::AmxBf16));
    assert_eq!(Precision::Int16.kernel(vnni), with_int16(Unit::F32));
    assert_eq!(Precision::Int16.kernel(none), Kernel::F32);
    assert_eq!(
        Precision::Int16.kernel(avx512),
        Precision::Auto.kernel(avx512)
    );
    // Queries split wherever activations are, but beside integer
    // products on AVX-512-BF16.
    assert!(!Precision::Auto.kernel(amd).splits_queries());
    assert!(!Precision::Int8.kernel(amd).splits_queries());
    assert!(Precision::Int16.kernel(amx).splits_queries());
    assert!(Precision::Auto.kernel(avx512).splits_queries());
    assert!(!Precision::Bf16.kernel(avx512).splits_queries());
    assert!(Precision::Auto.kernel(amx).splits_queries());
    assert!(Precision::Int8.kernel(amx).splits_queries());
    assert_eq!(
        Precision::Bf16.kernel(avx512),
        bf16(Unit::Avx512Bf16, Bf16Rounding::Once)
    );
    assert_eq!(
        Precision::Auto.kernel(amx),
        bf16(Unit::AmxBf16, Bf16Rounding::Split)
    );
    assert_eq!(Precision::F32.kernel(amx), Kernel::F32);
    // Where bf16's dot products are no faster than f32's fused
    // multiply-adds, auto takes f32; bf16 asked for is bf16.
    assert_eq!(Precision::Auto.kernel(intel_avx512), Kernel::F32);
    assert_eq!(
        Precision::Bf16.kernel(intel_avx512),
        bf16(Unit::Avx512Bf16, Bf16Rounding::Once)
    );
}

#[test]
fn kernel_caps_parse_and_order() {
    use super::KernelCap;
    for cap in [KernelCap::Avx2, KernelCap::Avx512Bf16, KernelCap::Amx] {
        assert_eq!(KernelCap::parse(cap.name()), Some(cap));
    }
    assert_eq!(KernelCap::parse("AVX2"), Some(KernelCap::Avx2));
    assert_eq!(KernelCap::parse("sse2"), None);
    assert!(KernelCap::Avx2 < KernelCap::Avx512Bf16 && KernelCap::Avx512Bf16 < KernelCap::Amx);
}

#[test]
fn precisions_parse_and_print() {
    for precision in Precision::ALL {
        assert_eq!(precision.name().parse(), Ok(precision));
    }
    assert_eq!("BF16".parse(), Ok(Precision::Bf16));
    assert_eq!("int8".parse(), Ok(Precision::Int8));
    assert_eq!("INT16".parse(), Ok(Precision::Int16));
    assert!("fp16".parse::<Precision>().is_err());
}

#[test]
fn detection_is_stable_and_consistent() {
    let features = Features::detect();
    assert_eq!(features, Features::detect());
    assert!(!features.amx_bf16 || features.avx512_bf16);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        features.avx512_vnni,
        std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && super::KernelCap::from_env() >= super::KernelCap::Avx512Bf16
    );
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        features.avx512_bf16,
        std::arch::is_x86_feature_detected!("avx512bf16")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && super::KernelCap::from_env() >= super::KernelCap::Avx512Bf16
    );
}
