# SPDX-License-Identifier: MIT OR Apache-2.0
# Stand-in for the generated verbs.h while it does not exist yet: read
# Debian's installed verbs.h, drop every static inline function, every
# function-like macro, the RDMA_STATIC_PROVIDERS block, the
# __VERBS_ABI_IS_EXTENDED definition and <limits>, and include our
# verbs_inline.h at the end instead.  Writes to <outdir>/infiniband/verbs.h.
# usage: mk_typesonly.py OUTDIR
import os,re,sys
outdir=sys.argv[1]
os.makedirs(os.path.join(outdir,'infiniband'),exist_ok=True)
src=open('/usr/include/infiniband/verbs.h').read()
lines=src.split('\n')
out=[];i=0;removed=[]
def skip_block(i):
    # skip from line i (start of function) to matching closing brace
    depth=0;started=False
    while True:
        l=lines[i]
        depth+=l.count('{');
        if '{' in l: started=True
        depth-=l.count('}')
        i+=1
        if started and depth==0: return i
while i<len(lines):
    l=lines[i]
    if re.match(r'^(__attribute__\(\(__always_inline__\)\) )?static inline',l):
        j=skip_block(i); removed.append(' '.join(lines[i:i+2])); i=j; continue
    m=re.match(r'^#define (\w+)\(',l)
    if m:
        removed.append('macro '+m.group(1))
        while lines[i].endswith('\\'): i+=1
        i+=1; continue
    if l.startswith('#ifdef RDMA_STATIC_PROVIDERS'):
        while not lines[i].startswith('#endif'): i+=1
        i+=1; removed.append('static providers block'); continue
    if l.startswith('#define __VERBS_ABI_IS_EXTENDED'):
        # drop the #ifdef __cplusplus/#else/#endif block around it
        out.pop(); i+=4; removed.append('__VERBS_ABI_IS_EXTENDED'); continue
    if l.startswith('#include <limits>'):
        i+=1; continue
    out.append(l); i+=1
txt='\n'.join(out)
idx=txt.rindex('#endif /* INFINIBAND_VERBS_H */')
txt=txt[:idx]+'#include <infiniband/verbs_inline.h>\n\n'+txt[idx:]
open(os.path.join(outdir,'infiniband','verbs.h'),'w').write(txt)
sys.stderr.write('mk_typesonly: %d inline functions/macros removed\n'%len(removed))
