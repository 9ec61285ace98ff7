/* This thread's hosted-call frame (providers/plugin/call.rs), as a C
 * thread-local with the initial-exec model.
 *
 * Why C: Rust's thread_local! in a shared library uses the general-dynamic
 * model, a __tls_get_addr call per access (about 15 instructions), and
 * stable Rust cannot choose another model. Every hosted verb touches its
 * frame twice (set by the verb, read by the plugin's ibv_cmd_*), so this
 * slot is reached through a plain call instead: an offset from %fs, ~5
 * instructions. The 32 bytes come from the static TLS block, which glibc
 * also reserves for a library loaded with dlopen. Zero is "no call". */
#include <stdint.h>

struct ibverbs_call_frame {
	uintptr_t w[4];
};

static __thread struct ibverbs_call_frame frame
	__attribute__((tls_model("initial-exec")));

__attribute__((visibility("hidden")))
struct ibverbs_call_frame *ibverbs_c_call_slot(void)
{
	return &frame;
}
