#!/bin/sh
# svc @VERSION@ as one file for Linux on x86-64 (docs/binary.md). These lines run first, on any machine with a
# POSIX shell: the program svc runs as follows them in this file. The first time, they check that this machine can
# run it (saying in one line what it needs when it cannot), write it to svc's cache folder, owner-only and named
# after the build, and try it once; after that each start only checks that the copy is still the one written
# (its inode, size, change time, owner and mode), then runs it. Nothing below the last line is shell.
# The cache folder must be the user's and closed to others: whoever can write to it could rename the checked copy
# away between the check and the run and put another in its place, or plant the record of the check. It is used by
# its physical path (a link to it is resolved once), and such a folder is refused in one line naming SVC_CACHE_DIR.
build=@BUILD@
offset=@OFFSET@
size=@SIZE@
cksum=@CKSUM@
glibc=@GLIBC@
needs='@NEEDS@'

say() { printf 'svc: %s\n' "$*" >&2; }
# The one line for a machine this file cannot serve: what it found, what it needs, and what to use instead.
cannot() {
  say "$1; this file needs $needs. Use the npm package there: npm install -g @svc/cli (Node @NODE@)"
  exit 1
}
# The one line for a cache folder it cannot use.
unwritable() {
  say "could not write its program to $dir ($1); set SVC_CACHE_DIR to a folder you can write and run programs from"
  exit 1
}

case $0 in /*) self=$0 ;; *) self=$PWD/$0 ;; esac
# svc's cache folder, as svc itself finds it.
if [ -n "${SVC_CACHE_DIR:-}" ]; then
  cache=$SVC_CACHE_DIR
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache=$XDG_CACHE_HOME/svc
elif [ -n "${HOME:-}" ]; then
  cache=$HOME/.cache/svc
else
  say 'neither HOME nor SVC_CACHE_DIR is set: set SVC_CACHE_DIR to a folder svc may keep its files in'
  exit 1
fi
# The folder itself, not a link that could be pointed elsewhere after the check: resolved once, when it is one.
if [ -L "$cache" ] && real=$(CDPATH='' cd -P -- "$cache" 2>/dev/null && pwd -P); then cache=$real; fi
dir=$cache/binary-$build-exe
exe=$dir/svc
# Beside the folder, so that writing it changes nothing the record describes.
record=$dir.checked
# Read by svc to name this file, not the copy it runs, in the commands it prints.
SVC_EXECUTABLE=$self
export SVC_EXECUTABLE

# What the kernel says of the cache folder, then the folder and the copy: mode, type, inode, size and change time
# (which any write, rename into the folder or chmod moves, and no user can set back). stat does not follow a
# symbolic link. The record holds the last two lines.
look() { stat -c '%a %F %i %s %Z' "$cache" "$dir" "$exe" 2>/dev/null; }

# Exits, in one line naming SVC_CACHE_DIR, when the cache folder (its line of look in $1) is not the user's alone.
guard() {
  case $1 in
    *[2367]?' directory '* | *[2367]' directory '*) shared="can be written by other users (mode ${1%% *})" ;;
    *' directory '*) [ -O "$cache" ] && return; shared='belongs to another user' ;;
    *) shared='is not a folder' ;;
  esac
  say "will not keep its program in $cache: that folder $shared. Set SVC_CACHE_DIR to a folder only you can write to"
  exit 1
}

# Sets why to the reason the copy in the folder cannot be run as it is, or to nothing when it can.
check() {
  why=
  now=$(look)
  guard "${now%%"$newline"*}"
  now=${now#*"$newline"}
  [ -O "$dir" ] && [ -O "$exe" ] || { why='it is not a copy of yours' && return; }
  case $now in
    "700 directory "*) ;;
    *) why="its folder is open to other users (mode ${now%% *})" && return ;;
  esac
  case ${now#*"$newline"} in
    "700 regular file "*) ;;
    *) why='it is not an owner-only file' && return ;;
  esac
  { IFS= read -r line1 && IFS= read -r line2; } 2>/dev/null <"$record"
  [ "$now" = "$line1$newline$line2" ] || why='it changed since it was checked'
}
newline='
'

if [ -e "$exe" ] || [ -L "$exe" ]; then
  check
  [ -z "$why" ] && exec "$exe" "$@"
  say "warning: $exe was not used: $why. Writing it again."
fi

# The machine: Linux on x86-64, with glibc new enough. The loader would refuse it otherwise, in its own words.
machine=$(uname -sm 2>/dev/null)
case $machine in
  'Linux x86_64' | 'Linux amd64') ;;
  *) cannot "this machine is ${machine:-not one uname describes}" ;;
esac
if found=$(getconf GNU_LIBC_VERSION 2>/dev/null); then
  have=${found#glibc }
  have_minor=${have#*.}
  have_minor=${have_minor%%.*}
  case $have in
    *[!0-9.]* | [!0-9]* | *.) ;; # not a version this check reads: the trial run below decides
    *.*)
      if [ "${have%%.*}" -lt "${glibc%%.*}" ] ||
        { [ "${have%%.*}" -eq "${glibc%%.*}" ] && [ "$have_minor" -lt "${glibc#*.}" ]; }; then
        cannot "this machine has glibc $have"
      fi
      ;;
  esac
elif command -v getconf >/dev/null 2>&1; then
  cannot "this machine's C library is not glibc (Alpine and other musl systems)"
fi

# This file itself, whole: a download cut short is named as such, not as a full disk.
whole=$(stat -L -c %s "$self" 2>/dev/null)
if [ -n "$whole" ] && [ "$whole" -ne $((offset + size)) ]; then
  say "this file is incomplete ($whole of $((offset + size)) bytes): download or copy it again"
  exit 1
fi

# Write the copy beside its place, check it, try it, and only then move it into place: a start that is
# interrupted, or that runs beside another one, never leaves a half-written copy where the next start looks.
umask 077
mkdir -p "$cache" 2>/dev/null || unwritable 'it cannot be made'
guard "$(stat -c '%a %F' "$cache" 2>/dev/null) "
if [ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ]; then chmod 700 "$dir" 2>/dev/null; else rm -rf "$dir" 2>/dev/null; fi
mkdir "$dir" 2>/dev/null
[ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ] && chmod 700 "$dir" 2>/dev/null || unwritable 'it cannot be made'
# A copy that a start killed mid-write left behind (its process is gone) is removed.
for left in "$dir"/svc.tmp-*; do
  [ -f "$left" ] && ! kill -0 "${left##*-}" 2>/dev/null && rm -f "$left"
done
tmp=$dir/svc.tmp-$$
trap 'rm -f "$tmp"; rmdir "$dir" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# dd reads the launcher's lines, exactly one block of that size; cat copies the rest, as fast as cp.
{ dd bs="$offset" count=1 of=/dev/null 2>/dev/null && cat; } <"$self" >"$tmp" 2>/dev/null ||
  unwritable 'the disk may be full'
# POSIX cksum: a CRC of the bytes, and their count, in one pass at the speed of a copy.
if command -v cksum >/dev/null 2>&1; then
  sum=$(cksum <"$tmp")
  [ "${sum#* }" = "$size" ] || unwritable "it holds ${sum#* } bytes of $size; the disk may be full"
  [ "${sum%% *}" = "$cksum" ] || {
    say "this file is damaged (its program's checksum is not the build's): download or copy it again"
    exit 1
  }
fi
chmod 700 "$tmp"
why=$("$tmp" --version 2>&1 >/dev/null)
case $? in
  0) ;;
  126) unwritable 'programs cannot run from there; it may be mounted noexec' ;;
  *)
    why=${why%%
*}
    why=${why#"$tmp: "}
    cannot "it cannot start here: ${why#error while loading shared libraries: }"
    ;;
esac
mv -f "$tmp" "$exe" || unwritable 'the copy could not be moved into place'
trap - EXIT INT TERM
# The record: under a fresh name that noclobber (O_EXCL) makes sure is a new file of ours, never through a link
# someone left there, then moved over the old one.
rec=$record.tmp-$$
rm -f "$rec"
now=$(look) && (set -C && printf '%s\n' "${now#*"$newline"}" >"$rec") 2>/dev/null && mv -f "$rec" "$record" ||
  rm -f "$rec"
exec "$exe" "$@"
exit 1
