//! `rdma_user_rxe.h`: what the rxe driver adds to the core commands. Its CQs,
//! QPs and SRQs live in queues the library mmaps from the uverbs fd at
//! `MmapInfo::offset`.

kstruct! {
    /// `struct mminfo`: where to mmap a queue (offset on the uverbs fd) and its size.
    pub struct MmapInfo = 16 {
        pub offset: u64,
        pub size: u32,
        pub pad: u32,
    }
}

kstruct! {
    /// `struct rxe_create_cq_resp`
    pub struct CreateCqResp = 16 {
        pub mi: MmapInfo,
    }
}

kstruct! {
    /// `struct rxe_resize_cq_resp`
    pub struct ResizeCqResp = 16 {
        pub mi: MmapInfo,
    }
}

kstruct! {
    /// `struct rxe_create_qp_resp`
    pub struct CreateQpResp = 32 {
        pub rq_mi: MmapInfo,
        pub sq_mi: MmapInfo,
    }
}

kstruct! {
    /// `struct rxe_create_srq_resp`
    pub struct CreateSrqResp = 24 {
        pub mi: MmapInfo,
        pub srq_num: u32,
        pub reserved: u32,
    }
}

kstruct! {
    /// `struct rxe_modify_srq_cmd`: where the kernel writes the new `MmapInfo`
    /// when an SRQ is resized (an address in this process).
    pub struct ModifySrqCmd = 8 {
        pub mmap_info_addr: u64,
    }
}

kstruct! {
    /// `struct rxe_create_ah_resp`
    pub struct CreateAhResp = 8 {
        pub ah_num: u32,
        pub reserved: u32,
    }
}

/// Layout of `struct rxe_queue_buf`, the header of every mmapped queue:
/// the indices sit on separate cache lines, elements start at `DATA`.
pub(crate) mod queue_buf {
    pub(crate) const LOG2_ELEM_SIZE: usize = 0;
    pub(crate) const INDEX_MASK: usize = 4;
    pub(crate) const PRODUCER_INDEX: usize = 128;
    pub(crate) const CONSUMER_INDEX: usize = 256;
    pub(crate) const DATA: usize = 384;
}
