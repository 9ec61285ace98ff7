//! The C types of rdma-core 44's `infiniband/verbs.h`, byte for byte.
//! cbindgen turns this module into `include/infiniband/verbs.h`.
#![allow(non_camel_case_types, non_snake_case)]
