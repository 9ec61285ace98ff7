//! `rdma_user_ioctl_cmds.h`: the `RDMA_VERBS_IOCTL` header and attribute.

kstruct! {
    /// `struct ib_uverbs_attr`; `elem_id` is `attr_data.enum_data.elem_id`, `data`
    /// holds inline data, an object handle, an fd, or a user pointer.
    pub struct IoctlAttr = 16 {
        pub attr_id: u16,
        pub len: u16,
        pub flags: u16,
        pub elem_id: u8,
        pub reserved: u8,
        pub data: u64,
    }
}

kstruct! {
    /// `struct ib_uverbs_ioctl_hdr`; followed by `attrs[num_attrs]`.
    pub struct IoctlHdr = 24 {
        pub length: u16,
        pub object_id: u16,
        pub method_id: u16,
        pub num_attrs: u16,
        pub reserved1: u64,
        pub driver_id: u32,
        pub reserved2: u32,
    }
}

/// The attribute is mandatory: a kernel that does not know it fails the call.
pub(crate) const UVERBS_ATTR_F_MANDATORY: u16 = 1 << 0;
/// Set by the kernel on a `PTR_OUT` attribute it wrote.
pub(crate) const UVERBS_ATTR_F_VALID_OUTPUT: u16 = 1 << 1;
