//! Types and values that verbs.h takes from its companion headers
//! (`verbs_api.h`, `rdma/ib_user_ioctl_verbs.h`). C gets them from there, so this
//! module is hidden from cbindgen; fields refer to them by their C names.

c_enum!(ib_uverbs_flow_action_esp_keymat: u32 {
    IB_UVERBS_FLOW_ACTION_ESP_KEYMAT_AES_GCM = 0,
});

c_enum!(ib_uverbs_flow_action_esp_replay: u32 {
    IB_UVERBS_FLOW_ACTION_ESP_REPLAY_NONE = 0,
    IB_UVERBS_FLOW_ACTION_ESP_REPLAY_BMP = 1,
});

c_enum!(ib_uverbs_advise_mr_advice: u32 {
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH = 0,
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE = 1,
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT = 2,
});

/// The `ibv_*` spellings verbs_api.h gives these values.
pub const IBV_ADVISE_MR_ADVICE_PREFETCH: u32 = IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH;
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE: u32 = IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
pub const IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT: u32 =
    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
pub const IBV_ADVISE_MR_FLAG_FLUSH: u32 = 1 << 0;
pub const IBV_QPF_GRH_REQUIRED: u32 = 1 << 0;

/// `ibv_access_flags` bits from `IBV_ACCESS_OPTIONAL_FIRST` up may be ignored
/// by a kernel that does not know them.
pub const IB_UVERBS_ACCESS_OPTIONAL_FIRST: u32 = 1 << 20;
pub const IB_UVERBS_ACCESS_OPTIONAL_LAST: u32 = 1 << 29;
pub const IBV_ACCESS_OPTIONAL_FIRST: u32 = IB_UVERBS_ACCESS_OPTIONAL_FIRST;
pub const IBV_ACCESS_OPTIONAL_RANGE: u32 =
    ((IB_UVERBS_ACCESS_OPTIONAL_LAST << 1) - 1) & !(IB_UVERBS_ACCESS_OPTIONAL_FIRST - 1);

/// Known to verbs.h only through pointers; the layouts live in the kernel uAPI.
pub struct ib_uverbs_flow_action_esp {
    _private: [u8; 0],
}
pub struct ib_uverbs_flow_action_esp_encap {
    _private: [u8; 0],
}
