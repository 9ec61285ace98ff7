//! Flag sets the safe code inspects, as `bitflags` types over the C integers.
//!
//! The C ABI keeps plain integers (`abi`'s `c_enum!` types and constants),
//! because the generated verbs.h must declare those enums exactly as
//! rdma-core's does; these types are the Rust view of the same bits, each
//! `#[repr(transparent)]` over the C integer, so converting costs nothing.
//! `from_bits` is the "unknown bit: EINVAL" check a verb makes;
//! `from_bits_retain` keeps bits that are passed on to the kernel as given.

use crate::abi::*;
use bitflags::bitflags;

bitflags! {
    /// `enum ibv_access_flags`: what an MR or MW allows.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Access: u32 {
        const LOCAL_WRITE = IBV_ACCESS_LOCAL_WRITE;
        const REMOTE_WRITE = IBV_ACCESS_REMOTE_WRITE;
        const REMOTE_READ = IBV_ACCESS_REMOTE_READ;
        const REMOTE_ATOMIC = IBV_ACCESS_REMOTE_ATOMIC;
        const MW_BIND = IBV_ACCESS_MW_BIND;
        const ZERO_BASED = IBV_ACCESS_ZERO_BASED;
        const ON_DEMAND = IBV_ACCESS_ON_DEMAND;
        const HUGETLB = IBV_ACCESS_HUGETLB;
        const FLUSH_GLOBAL = IBV_ACCESS_FLUSH_GLOBAL;
        const FLUSH_PERSISTENT = IBV_ACCESS_FLUSH_PERSISTENT;
        const RELAXED_ORDERING = IBV_ACCESS_RELAXED_ORDERING;
        /// The bits a kernel that does not know them may ignore.
        const OPTIONAL_RANGE = IBV_ACCESS_OPTIONAL_RANGE;
    }
}

bitflags! {
    /// `enum ibv_rereg_mr_flags`: what ibv_rereg_mr changes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Rereg: u32 {
        const CHANGE_TRANSLATION = IBV_REREG_MR_CHANGE_TRANSLATION;
        const CHANGE_PD = IBV_REREG_MR_CHANGE_PD;
        const CHANGE_ACCESS = IBV_REREG_MR_CHANGE_ACCESS;
    }
}

bitflags! {
    /// `enum ibv_reg_mr_init_attr_mask`: which fields of `ibv_mr_init_attr` are set.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct RegMrMask: u64 {
        const IOVA = IBV_REG_MR_MASK_IOVA as u64;
        const ADDR = IBV_REG_MR_MASK_ADDR as u64;
        const FD = IBV_REG_MR_MASK_FD as u64;
        const FD_OFFSET = IBV_REG_MR_MASK_FD_OFFSET as u64;
        const DMAH = IBV_REG_MR_MASK_DMAH as u64;
        const BUF = IBV_REG_MR_MASK_BUF as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bits_as_the_abi() {
        assert_eq!(Rereg::all().bits(), IBV_REREG_MR_FLAGS_SUPPORTED);
        assert_eq!(Rereg::from_bits(8), None);
        assert_eq!(Rereg::from_bits(u32::MAX), None);
        let a = Access::from_bits_retain(IBV_ACCESS_ON_DEMAND | 0x8000);
        assert!(a.contains(Access::ON_DEMAND));
        assert_eq!(a.bits(), 0x8040);
        assert_eq!(
            (a | Access::RELAXED_ORDERING)
                .difference(Access::OPTIONAL_RANGE)
                .bits(),
            0x8040
        );
        assert_eq!(size_of::<Access>(), size_of::<u32>());
    }
}
