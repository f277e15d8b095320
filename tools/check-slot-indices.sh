#!/bin/sh
# check-slot-indices.sh: fails when stdlib-lisp reaches into a shared layout by a literal number.
# The layouts C and Lisp share live in runtime/lisp-abi.def; stdlib-lisp must use the accessors
# generated from it ((%class.name c), (%flag.standard), (%emf.chain), ...). A literal index in an
# %INSTANCE-REF/-SET/-BOUNDP, a literal size or flag in %MAKE-INSTANCE/%ALLOCATE-INSTANCE, or a
# literal tag heading a %CLOS-VECTOR is what this looks for. Prints each offence; exit 1 if any.
# Usage: check-slot-indices.sh [FILE...]   (default: every stdlib-lisp/*.lisp)
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || set -- stdlib-lisp/*.lisp
perl -ne '
    # an argument: a balanced list or an atom
    my $arg = qr/(\((?:[^()]++|(?-1))*\)|[^\s()]+)/;
    my $bad = 0;
    $bad = 1 if /%instance-(?:ref|set|boundp)\s+$arg\s+\d/;
    $bad = 1 if /%make-instance\s+$arg\s+\d/ || /%make-instance\s+$arg\s+$arg\s+\d/;
    $bad = 1 if /%allocate-instance\s+$arg\s+\d/;
    $bad = 1 if /%allocate-funcallable-instance\s+$arg\s+$arg\s+\d/;
    $bad = 1 if /%clos-vector\s+\d/;
    $bad = 1 if /%instance-flags\s+$arg\)\s+\d/;
    if ($bad && !/^\s*;/) { print "$ARGV:$.: $_"; $found = 1 }
    close ARGV if eof;   # keep $. per file
    END { exit($found ? 1 : 0) }
' "$@"
