//! rdma-core's private provider ABI: the structs and entry points its C
//! provider plugins (`lib<name>-rdmav<N>.so`) are built against. `v34` is
//! rdma-core 34..56's `IBVERBS_PRIVATE_34`, the host's own layout (44's:
//! where a call or `ibv_qp_ex` changed within it, `providers/plugin/release`
//! tells the releases apart: [`V34_45`] the longer `ibv_qp_ex`, [`V34_50`]
//! also the longer `ibv_port_attr`); a later
//! version is a [`Pabi`] row of what differs from it (and a module of its
//! structs, checked against facts recorded from rdma-core), and the host
//! (`providers/plugin`) reads the row of the version a plugin registered
//! with. Not part of verbs.h.

use std::ffi::c_void;
use std::sync::OnceLock;

macro_rules! context_ops {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?,)*) => {
        /// `struct verbs_context_ops`: every op a plugin may implement, in
        /// rdma-core's (sorted) order. A NULL slot is one the plugin lacks.
        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        pub struct verbs_context_ops {
            $(pub $name: Option<unsafe extern "C" fn($($arg),*) $(-> $ret)?>,)*
        }

        impl verbs_context_ops {
            /// Every slot of `from` that is set overrides ours.
            pub fn merge(&mut self, from: &verbs_context_ops) {
                $(if from.$name.is_some() { self.$name = from.$name; })*
            }

            /// The slot names, in order (for the layout test).
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];
        }
    };
}
pub mod v34;
pub mod v65;

/// One version of the private ABI: what the host converts for its plugins.
pub struct Pabi {
    /// N of `IBVERBS_PRIVATE_N`, `verbs_register_driver_N`, `-rdmavN.so`.
    pub version: u32,
    /// Bytes of op slots its `verbs_context` has in front of 34's (the
    /// host sees a context from its v34 part on).
    pub context_growth: usize,
    /// `sizeof(struct ibv_qp_ex)`: where `verbs_qp.comp_mask` starts.
    pub qp_ex_size: usize,
    /// `sizeof(struct ibv_port_attr)`: what `ibv_cmd_query_port` may write.
    pub port_attr_size: usize,
    /// Its `verbs_context_ops` slot names, in order.
    pub ops: &'static [&'static str],
    /// For each v34 slot, its index in `ops` (made once).
    to_v34: OnceLock<Vec<Option<usize>>>,
}

impl Pabi {
    const fn new(
        version: u32,
        context_growth: usize,
        qp_ex_size: usize,
        port_attr_size: usize,
        ops: &'static [&'static str],
    ) -> Pabi {
        Pabi {
            version,
            context_growth,
            qp_ex_size,
            port_attr_size,
            ops,
            to_v34: OnceLock::new(),
        }
    }

    /// Whether its `verbs_qp` has `comp_mask` and `xrcd` elsewhere than
    /// 44's, where the v34 commands write them.
    pub fn moves_qp_mask(&self) -> bool {
        self.qp_ex_size != v34::QP_EX_SIZE
    }

    /// The plugin file suffix of this version.
    pub fn suffix(&self) -> String {
        format!("-rdmav{}.so", self.version)
    }

    /// A plugin's op table of this version as the host's (v34) table:
    /// slots taken by name; those 34 lacks are left out.
    ///
    /// # Safety
    /// `table` points to a `verbs_context_ops` of this version.
    #[allow(unsafe_code)]
    pub unsafe fn ops_to_v34(&self, table: *const c_void) -> v34::verbs_context_ops {
        let map = self.to_v34.get_or_init(|| {
            v34::verbs_context_ops::NAMES
                .iter()
                .map(|n| self.ops.iter().position(|m| m == n))
                .collect()
        });
        const W: usize = size_of::<usize>();
        let mut out = [0usize; size_of::<v34::verbs_context_ops>() / W];
        for (o, i) in out.iter_mut().zip(map) {
            if let Some(i) = *i {
                // SAFETY: word `i` of the table (per the contract).
                *o = unsafe { table.cast::<usize>().add(i).read() };
            }
        }
        // SAFETY: a table of optional function pointers, word for word.
        unsafe {
            std::mem::transmute::<
                [usize; size_of::<v34::verbs_context_ops>() / W],
                v34::verbs_context_ops,
            >(out)
        }
    }
}

/// rdma-core 44's `ibv_port_attr`, before 50's `active_speed_ex`.
const PORT_ATTR_44: usize = std::mem::offset_of!(crate::abi::ibv_port_attr, active_speed_ex);
/// rdma-core 50's and later.
const PORT_ATTR_50: usize = size_of::<crate::abi::ibv_port_attr>();

/// rdma-core 34 to 44: the host's own layout.
pub static V34: Pabi = Pabi::new(
    34,
    0,
    v34::QP_EX_SIZE,
    PORT_ATTR_44,
    v34::verbs_context_ops::NAMES,
);
/// rdma-core 45 to 49: 34's, with 45's longer `ibv_qp_ex` (`wr_flush`).
/// Same version and file suffix: `providers/plugin/release` picks this row
/// (or the next) for a v34 plugin it finds installed by one of these releases.
pub static V34_45: Pabi = Pabi::new(
    34,
    0,
    v34::QP_EX_SIZE_45,
    PORT_ATTR_44,
    v34::verbs_context_ops::NAMES,
);
/// rdma-core 50 to 56: 45's, with 50's longer `ibv_port_attr`.
pub static V34_50: Pabi = Pabi::new(
    34,
    0,
    v34::QP_EX_SIZE_45,
    PORT_ATTR_50,
    v34::verbs_context_ops::NAMES,
);
/// rdma-core 65: 64's `verbs_context` and `ibv_qp_ex`, 17 more op slots.
pub static V65: Pabi = Pabi::new(
    65,
    v34::GROWTH,
    size_of::<crate::abi::ibv_qp_ex>(),
    PORT_ATTR_50,
    v65::verbs_context_ops::NAMES,
);
/// Every version hosted, newest first: the order the loader tries them in.
pub static HOSTED: [&Pabi; 2] = [&V65, &V34];

/// `VERBS_MATCH_*`: how a `verbs_match_ent` names the devices it drives.
pub const VERBS_MATCH_SENTINEL: u8 = 0;
pub const VERBS_MATCH_PCI: u8 = 1;
pub const VERBS_MATCH_MODALIAS: u8 = 2;
pub const VERBS_MATCH_DRIVER_ID: u8 = 3;

/// `VSYSFS_READ_*`: which lazily read fields of `verbs_sysfs_dev` are valid.
pub const VSYSFS_READ_MODALIAS: u32 = 1 << 0;
pub const VSYSFS_READ_NODE_GUID: u32 = 1 << 1;

/// `VERBS_LOG_*` levels of `__verbs_log`.
pub const VERBS_LOG_ERR: u32 = 1;
pub const VERBS_LOG_WARN: u32 = 2;
pub const VERBS_LOG_INFO: u32 = 3;
pub const VERBS_LOG_DEBUG: u32 = 4;
