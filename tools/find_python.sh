#!/bin/sh
# Which Python the Makefile builds .venv/ with. $TESTED lists the tested versions (e.g. "3.11 3.12 3.13").
#   sh tools/find_python.sh python3 python3.13 ...   print the first that runs and is a tested version (exit 1: none)
#   sh tools/find_python.sh --check PYTHON           say whether PYTHON will do: exit 1 with the reason if it is
#                                                    missing or older than the oldest tested version; a newer one
#                                                    passes with a note (pip may have to build what has no wheel)
version_of() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }
oldest=${TESTED%% *}
newest=${TESTED##* }

if [ "$1" = "--check" ]; then
    if [ -z "$2" ]; then
        echo "No Python $oldest-$newest found (tried python3, python${newest}, ..., python). Install one" \
             "(the course is tested on $TESTED), or name it: make PYTHON=/path/to/python3.12" >&2
        exit 1
    fi
    version=$(version_of "$2") || { echo "PYTHON=$2 does not run; the course is tested on Python $TESTED" >&2; exit 1; }
    case " $TESTED " in *" $version "*) exit 0 ;; esac
    if [ "${version%%.*}" -lt "${oldest%%.*}" ] ||
       { [ "${version%%.*}" -eq "${oldest%%.*}" ] && [ "${version#*.}" -lt "${oldest#*.}" ]; }; then
        echo "PYTHON=$2 is Python $version; the course needs $oldest or newer (tested on $TESTED)" >&2
        exit 1
    fi
    echo "note: PYTHON=$2 is Python $version, newer than the tested $TESTED; trying it" >&2
    exit 0
fi

for py in "$@"; do
    version=$(version_of "$py") || continue
    case " $TESTED " in
        *" $version "*) command -v "$py"; exit 0 ;;
    esac
done
exit 1
