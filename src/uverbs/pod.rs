//! Kernel ABI structs as plain bytes: the one place that views a struct as `[u8]`.
#![allow(unsafe_code)]

/// A `#[repr(C)]` value made only of integers, with no padding: all its bytes are
/// initialised and every byte pattern is a valid value.
///
/// # Safety
/// Implement only for integers, arrays of `Pod`, and structs declared with
/// [`kstruct!`], which proves both properties at compile time.
pub(crate) unsafe trait Pod: Copy + 'static {
    /// The all-zero value (what the kernel expects in reserved fields).
    fn zeroed() -> Self {
        // SAFETY: every byte pattern, including all zeroes, is a valid `Pod` value.
        unsafe { std::mem::zeroed() }
    }

    fn as_bytes(&self) -> &[u8] {
        // SAFETY: `Pod` has no padding, so all `size_of::<Self>()` bytes are initialised.
        unsafe { std::slice::from_raw_parts((self as *const Self).cast(), size_of::<Self>()) }
    }

    fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`; any bytes written back form a valid value.
        unsafe { std::slice::from_raw_parts_mut((self as *mut Self).cast(), size_of::<Self>()) }
    }

    /// The start of `b` as a value in place; `None` if `b` is too short or
    /// not aligned for `Self`.
    fn from_bytes_mut(b: &mut [u8]) -> Option<&mut Self> {
        let p = b.as_mut_ptr();
        if b.len() < size_of::<Self>() || !p.cast::<Self>().is_aligned() {
            return None;
        }
        // SAFETY: in bounds and aligned (checked), exclusively borrowed for
        // the result's lifetime; any bytes are a valid `Pod` value.
        Some(unsafe { &mut *p.cast::<Self>() })
    }

    /// Reads a value from the start of `b`; missing trailing bytes read as zero,
    /// as when an older kernel returns a shorter response.
    fn from_prefix(b: &[u8]) -> Self {
        let mut v = Self::zeroed();
        let n = b.len().min(size_of::<Self>());
        v.as_bytes_mut()[..n].copy_from_slice(&b[..n]);
        v
    }
}

// SAFETY: integers have no padding and no invalid bit patterns; `()` has no bytes.
unsafe impl Pod for () {}
// SAFETY: as above.
unsafe impl Pod for u8 {}
// SAFETY: as above.
unsafe impl Pod for u16 {}
// SAFETY: as above.
unsafe impl Pod for u32 {}
// SAFETY: as above.
unsafe impl Pod for u64 {}
// SAFETY: as above.
unsafe impl Pod for i32 {}
// SAFETY: as above.
unsafe impl Pod for i64 {}
// SAFETY: arrays have no padding between elements, and the elements are `Pod`.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

/// Declares a kernel struct: `#[repr(C)]`, its C size checked, no padding, `Pod`.
///
/// `kstruct! { /// doc  pub struct Name = SIZE { pub field: type, ... } }`
macro_rules! kstruct {
    ($(#[$m:meta])* pub struct $name:ident = $size:literal { $(pub $f:ident: $t:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) struct $name {
            $(pub $f: $t,)*
        }

        const _: () = {
            assert!(::core::mem::size_of::<$name>() == $size, "size differs from the C header");
            assert!(
                ::core::mem::size_of::<$name>() == 0 $(+ ::core::mem::size_of::<$t>())*,
                "kernel structs must have no implicit padding"
            );
            const fn field_is_pod<T: $crate::uverbs::pod::Pod>() {}
            $(field_is_pod::<$t>();)*
        };

        // SAFETY: the asserts above prove there is no padding and every field is `Pod`.
        #[allow(unsafe_code)]
        unsafe impl $crate::uverbs::pod::Pod for $name {}

        impl Default for $name {
            fn default() -> Self {
                <Self as $crate::uverbs::pod::Pod>::zeroed()
            }
        }
    };
}
pub(crate) use kstruct;
