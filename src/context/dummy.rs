//! What an op slot holds when the provider has no such verb: EOPNOTSUPP, the
//! way rdma-core's dummy ops answer (int ops return it, pointer ops return
//! NULL with errno set, void ops do nothing). Inline functions in verbs.h call
//! these slots without checking for NULL, so no slot may stay empty.

use crate::abi::{ibv_context_ops, verbs_context};
use std::ffi::c_int;

/// A fn-pointer type's "not supported" function.
pub(crate) trait Dummy {
    const DUMMY: Self;
}

macro_rules! dummies {
    ($($a:ident),*) => {
        impl<$($a,)*> Dummy for unsafe extern "C" fn($($a),*) -> c_int {
            const DUMMY: Self = {
                #[allow(non_snake_case)]
                unsafe extern "C" fn d<$($a,)*>($(_: $a),*) -> c_int {
                    libc::EOPNOTSUPP
                }
                d::<$($a,)*>
            };
        }
        impl<$($a,)* R> Dummy for unsafe extern "C" fn($($a),*) -> *mut R {
            const DUMMY: Self = {
                unsafe extern "C" fn d<$($a,)* R>($(_: $a),*) -> *mut R {
                    crate::entry::set_errno(crate::entry::Errno::EOPNOTSUPP);
                    std::ptr::null_mut()
                }
                d::<$($a,)* R>
            };
        }
        impl<$($a,)*> Dummy for unsafe extern "C" fn($($a),*) {
            const DUMMY: Self = {
                unsafe extern "C" fn d<$($a,)*>($(_: $a),*) {}
                d::<$($a,)*>
            };
        }
    };
}

dummies!();
dummies!(A);
dummies!(A, B);
dummies!(A, B, C);
dummies!(A, B, C, D);
dummies!(A, B, C, D, E);
dummies!(A, B, C, D, E, F);

fn dummy<T: Dummy>() -> Option<T> {
    Some(T::DUMMY)
}

/// Every extended op slot set to its dummy; providers then set what they do.
pub(crate) fn fill_verbs_context(v: &mut verbs_context) {
    v.query_port = dummy();
    v.advise_mr = dummy();
    v.alloc_null_mr = dummy();
    v.read_counters = dummy();
    v.attach_counters_point_flow = dummy();
    v.create_counters = dummy();
    v.destroy_counters = dummy();
    v.reg_dm_mr = dummy();
    v.alloc_dm = dummy();
    v.free_dm = dummy();
    v.modify_flow_action_esp = dummy();
    v.destroy_flow_action = dummy();
    v.create_flow_action_esp = dummy();
    v.modify_qp_rate_limit = dummy();
    v.alloc_parent_domain = dummy();
    v.dealloc_td = dummy();
    v.alloc_td = dummy();
    v.modify_cq = dummy();
    v.post_srq_ops = dummy();
    v.destroy_rwq_ind_table = dummy();
    v.create_rwq_ind_table = dummy();
    v.destroy_wq = dummy();
    v.modify_wq = dummy();
    v.create_wq = dummy();
    v.query_rt_values = dummy();
    v.create_cq_ex = dummy();
    v.query_device_ex = dummy();
    v.ibv_destroy_flow = dummy();
    v.ibv_create_flow = dummy();
    v.open_qp = dummy();
    v.create_qp_ex = dummy();
    v.get_srq_num = dummy();
    v.create_srq_ex = dummy();
    v.open_xrcd = dummy();
    v.close_xrcd = dummy();
    fill_context_ops(&mut v.context.ops);
}

/// The data-path slots of ibv_context_ops that inline functions call.
pub(crate) fn fill_context_ops(o: &mut ibv_context_ops) {
    o.alloc_mw = dummy();
    o.bind_mw = dummy();
    o.dealloc_mw = dummy();
    o.poll_cq = dummy();
    o.req_notify_cq = dummy();
    o.post_srq_recv = dummy();
    o.post_send = dummy();
    o.post_recv = dummy();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::*;

    #[test]
    fn dummies_answer_eopnotsupp() {
        // SAFETY: plain C data; all-zero is valid.
        let mut v: verbs_context = unsafe { std::mem::zeroed() };
        fill_verbs_context(&mut v);
        use std::ptr::null_mut as null;
        // SAFETY: the dummies ignore their arguments.
        unsafe {
            assert_eq!(
                v.context.ops.post_send.unwrap()(null(), null(), null()),
                libc::EOPNOTSUPP
            );
            assert!(v.alloc_td.unwrap()(null(), null()).is_null());
        }
        assert_eq!(crate::entry::Errno::last(), crate::entry::Errno::EOPNOTSUPP);
    }
}
