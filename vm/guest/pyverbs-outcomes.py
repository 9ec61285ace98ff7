#!/usr/bin/env python3
# Runs a release's own pyverbs tests (a copy of /usr/share/doc/rdma-core/tests,
# gunzipped, as DIR/tests) on one device and writes one line per test to OUT:
#   ID<TAB>pass|fail|error|skip|xfail|xpass<TAB>reason
# so that two libraries' runs can be compared test by test.
#
#   pyverbs-outcomes.py DIR DEVICE GID_INDEX OUT
import importlib
import sys
import unittest

d, dev, gid, out = sys.argv[1:5]
# The tests import their helpers both as "tests.X" and, like run_tests.py,
# as top-level modules (args_parser).
sys.path[0:0] = [d + '/tests', d]
sys.argv = [sys.argv[0], '--dev', dev, '--gid', gid]
from args_parser import parser  # noqa: E402
parser.parse_args()
tests = importlib.import_module('tests')
suite = unittest.defaultTestLoader.loadTestsFromModule(tests)


def ids(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from ids(t)
        else:
            yield t.id()


every = list(ids(suite))
res = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
outcome = {}
for kind, pairs in (('fail', res.failures), ('error', res.errors),
                    ('xfail', res.expectedFailures)):
    for t, tb in pairs:
        last = [ln for ln in tb.strip().splitlines() if ln.strip()][-1:]
        outcome[t.id()] = (kind, last[0].strip()[:160] if last else '')
for t, why in res.skipped:
    outcome.setdefault(t.id(), ('skip', str(why).replace('\n', ' ')[:160]))
for t in res.unexpectedSuccesses:
    outcome[t.id()] = ('xpass', '')
with open(out, 'w') as f:
    for i in every:
        k, why = outcome.get(i, ('pass', ''))
        f.write('%s\t%s\t%s\n' % (i, k, why.replace('\t', ' ')))
    # class/module fixtures that failed have ids of their own
    for i, (k, why) in sorted(outcome.items()):
        if i not in every:
            f.write('%s\t%s\t%s\n' % (i, k, why.replace('\t', ' ')))
