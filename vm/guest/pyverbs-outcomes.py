#!/usr/bin/env python3
# Runs a release's own pyverbs tests (a copy of /usr/share/doc/rdma-core/tests,
# gunzipped, as DIR/tests) on one device and writes one line per test to OUT:
#   ID<TAB>pass|fail|error|skip|xfail|xpass|crash<TAB>reason
# so that two libraries' runs can be compared test by test.
#
#   pyverbs-outcomes.py DIR DEVICE GID_INDEX OUT
#
# The tests run in a child process that writes each outcome as it comes; a
# test that kills it (a crash in pyverbs or the library) is recorded as
# "crash" with the exit status, and a new child runs the tests after it.
import importlib
import os
import subprocess
import sys
import unittest


def child(d, dev, gid, out, done_file):
    # The tests import their helpers both as "tests.X" and, like
    # run_tests.py, as top-level modules (args_parser).
    sys.path[0:0] = [d + '/tests', d]
    sys.argv = [sys.argv[0], '--dev', dev, '--gid', gid]
    from args_parser import parser
    parser.parse_args()
    tests = importlib.import_module('tests')
    done = set(open(done_file).read().split())
    f = open(out, 'a', buffering=1)

    def flat(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    todo = unittest.TestSuite(
        t for t in flat(unittest.defaultTestLoader.loadTestsFromModule(tests))
        if t.id() not in done)

    def last(tb):
        lines = [ln for ln in tb.strip().splitlines() if ln.strip()]
        return lines[-1].strip()[:160] if lines else ''

    class Result(unittest.TextTestResult):
        def put(self, t, kind, why=''):
            f.write('%s\t%s\t%s\n' % (t.id(), kind, why.replace('\t', ' ').replace('\n', ' ')))

        def startTest(self, t):
            super().startTest(t)
            f.write('START\t%s\n' % t.id())

        def addSuccess(self, t):
            super().addSuccess(t)
            self.put(t, 'pass')

        def addFailure(self, t, err):
            super().addFailure(t, err)
            self.put(t, 'fail', last(self.failures[-1][1]))

        def addError(self, t, err):
            super().addError(t, err)
            self.put(t, 'error', last(self.errors[-1][1]))

        def addSkip(self, t, why):
            super().addSkip(t, why)
            self.put(t, 'skip', str(why)[:160])

        def addExpectedFailure(self, t, err):
            super().addExpectedFailure(t, err)
            self.put(t, 'xfail')

        def addUnexpectedSuccess(self, t):
            super().addUnexpectedSuccess(t)
            self.put(t, 'xpass')

    unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=Result).run(todo)
    f.write('END\n')


def main():
    d, dev, gid, out = sys.argv[1:5]
    raw, done_file = out + '.raw', out + '.done'
    open(raw, 'w').close()
    open(done_file, 'w').close()
    outcome, order = {}, []
    for _ in range(30):
        rc = subprocess.call([sys.executable, __file__, '--child', d, dev, gid, raw, done_file])
        started, ended = None, False
        for line in open(raw):
            parts = line.rstrip('\n').split('\t')
            if parts[0] == 'START':
                started = parts[1]
            elif parts[0] == 'END':
                ended = True
            elif len(parts) == 3:
                if parts[0] not in outcome:
                    order.append(parts[0])
                outcome[parts[0]] = (parts[1], parts[2])
                if parts[0] == started:
                    started = None
        open(raw, 'w').close()
        if ended:
            break
        # the child died: in the test it had started (recorded as crash), or
        # between tests (a row after the last one); go on after it. Dead
        # before its first test (the tests did not load): one row, stop.
        if started is None:
            if not order:
                order.append('(loading the tests)')
                outcome[order[0]] = ('crash', 'exit status %d' % rc)
                break
            started = '(after %s)' % order[-1]
            if started in outcome:
                break
        if started not in outcome:
            order.append(started)
        outcome[started] = ('crash', 'exit status %d' % rc)
        with open(done_file, 'w') as f:
            f.write('\n'.join(order) + '\n')
    with open(out, 'w') as f:
        for i in order:
            f.write('%s\t%s\t%s\n' % (i, outcome[i][0], outcome[i][1]))
    for p in (raw, done_file):
        os.unlink(p)


if __name__ == '__main__':
    if sys.argv[1] == '--child':
        child(*sys.argv[2:7])
    else:
        main()
