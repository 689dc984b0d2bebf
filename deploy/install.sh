#!/usr/bin/env bash
# Install fairyzero (`fairyzero` and its libtorch helper `fairyzero-torch`) into $PREFIX: the
# container image's install steps (deploy/Dockerfile runs this script), and a way to install on
# any Debian/Ubuntu machine, a Slurm cluster's nodes included. Run from anywhere; it builds the
# checkout it belongs to.
#
#   deploy/install.sh                                  # release build into /opt/fairyzero
#   PREFIX=$HOME/fz TORCH_VARIANT=cpu deploy/install.sh
#
# Idempotent: each step checks what is already there (system packages, cargo, the torch venv
# through scripts/setup-torch.sh's own marker, cargo's own freshness) and does only what is
# missing, so a second run costs seconds.
#
# Environment:
#   PREFIX               where to install (default /opt/fairyzero): bin/fairyzero,
#                        bin/fairyzero-torch, configs/, models/
#   FAIRYZERO_PROFILE    release (default) or dev: dev installs the debug binaries of
#                        target/debug (what the tests build), built by cargo only if stale
#   TORCH_VARIANT        which torch 2.13 wheel provides libtorch:
#                          pypi   (default) PyPI's own wheel, the one `make setup` installs (a
#                                 CUDA 13.0 build that also runs on CPU-only machines; 4.7 GB)
#                          cpu    download.pytorch.org/whl/cpu (CPU only, much smaller)
#                          cuNNN  download.pytorch.org/whl/cuNNN, e.g. cu126, cu128, cu130
#                                 (pick one the machines' NVIDIA driver supports)
#   FAIRYZERO_TORCH_VENV the torch venv (default: the Makefile's, ~/.cache/fairyzero/torch-2.13.0,
#                        for pypi; ~/.cache/fairyzero/torch-2.13.0-<variant> otherwise). The
#                        installed fairyzero-torch has an absolute RUNPATH into it: keep the venv
#                        at this path (the image does) or the helper will not find libtorch.
#   FAIRYZERO_NO_APT=1   never run apt-get (fail instead, naming what is missing)
#   FAIRYZERO_BUILD=0    do not run cargo: install the binaries already built in
#                        target/<profile> (by `make build`, or `make test` for dev); the tests
#                        use it so as not to contend with the cargo that runs them
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
PREFIX=${PREFIX:-/opt/fairyzero}
profile=${FAIRYZERO_PROFILE:-release}
variant=${TORCH_VARIANT:-pypi}
export TORCH_VERSION=${TORCH_VERSION:-2.13.0}

say() { echo "install: $*" >&2; }
die() { echo "install: error: $*" >&2; exit 1; }

case $profile in
    release | dev) ;;
    *) die "FAIRYZERO_PROFILE must be release or dev, not '$profile'" ;;
esac
case $variant in
    pypi | cpu | cu[0-9][0-9][0-9]) ;;
    *) die "TORCH_VARIANT must be pypi, cpu or cuNNN (e.g. cu128), not '$variant'" ;;
esac
if [[ $variant == pypi ]]; then
    default_venv=$HOME/.cache/fairyzero/torch-$TORCH_VERSION
else
    default_venv=$HOME/.cache/fairyzero/torch-$TORCH_VERSION-$variant
fi
export FAIRYZERO_TORCH_VENV=${FAIRYZERO_TORCH_VENV:-$default_venv}

# --- 1. System packages: a C/C++ toolchain (torch-sys compiles a C++ shim, rustc links with
# cc), python3 with venv (the torch wheel), curl (rustup). Nothing else: TLS is rustls, the
# variants are compiled in.
missing=()
command -v cc >/dev/null || missing+=(build-essential)
command -v c++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
# Debian splits ensurepip out of python3: without it `python3 -m venv` makes a venv with no pip.
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if ! command -v cargo >/dev/null && [[ ! -x $HOME/.cargo/bin/cargo ]]; then
    command -v curl >/dev/null || missing+=(curl ca-certificates)
fi
if ((${#missing[@]})); then
    [[ ${FAIRYZERO_NO_APT:-0} != 1 ]] || die "missing system packages: ${missing[*]} (FAIRYZERO_NO_APT=1)"
    command -v apt-get >/dev/null || die "missing system packages: ${missing[*]}, and no apt-get to install them"
    sudo=()
    [[ $(id -u) == 0 ]] || sudo=(sudo)
    say "apt-get install ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- 2. Rust, through rustup, only where there is no cargo at all (the workspace's
# rust-version in Cargo.toml says which toolchain is enough; rustup's stable is newer).
if ! command -v cargo >/dev/null; then
    if [[ ! -x $HOME/.cargo/bin/cargo ]]; then
        say "installing Rust (rustup, stable, minimal profile)"
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
            sh -s -- -y --profile minimal --default-toolchain stable --no-modify-path
    fi
    export PATH=$HOME/.cargo/bin:$PATH
fi

# --- 3. The torch venv, through the project's own script (its marker makes a second run free).
# pip reads its index from the environment, which selects the wheel's build; PyPI stays an
# extra index for torch's pure-Python dependencies.
if [[ $variant != pypi ]]; then
    export PIP_INDEX_URL=https://download.pytorch.org/whl/$variant
    export PIP_EXTRA_INDEX_URL=https://pypi.org/simple
fi
"$repo/scripts/setup-torch.sh"
# The venv's marker names the version, not the build: refuse a venv of another variant rather
# than link against it silently (a cpu binary in a CUDA image would never see the GPU).
torch_dir=$(echo "$FAIRYZERO_TORCH_VENV"/lib/python3*/site-packages/torch)
[[ -d $torch_dir/lib ]] || die "no torch/lib under $FAIRYZERO_TORCH_VENV"
installed=$(sed -n "s/^__version__ *= *['\"]\(.*\)['\"].*/\1/p" "$torch_dir/version.py")
if [[ $variant != pypi && $installed != "$TORCH_VERSION+$variant" ]]; then
    die "the venv $FAIRYZERO_TORCH_VENV has torch $installed, not $TORCH_VERSION+$variant: set FAIRYZERO_TORCH_VENV to another path for this variant"
fi
say "libtorch: torch $installed in $FAIRYZERO_TORCH_VENV"

# --- 4. Build. The environment is the Makefile's (`make env`): torch-sys finds libtorch through
# the venv's python, and torch/build.rs writes the venv's torch/lib into the helper's RUNPATH.
export LIBTORCH_USE_PYTORCH=1 VIRTUAL_ENV=$FAIRYZERO_TORCH_VENV
export PATH=$VIRTUAL_ENV/bin:$PATH
target_dir=${CARGO_TARGET_DIR:-$repo/target}
cd "$repo"
if [[ $profile == release ]]; then
    out=$target_dir/release
    flags=(--release)
else
    out=$target_dir/debug
    flags=()
fi
if [[ ${FAIRYZERO_BUILD:-1} != 0 ]]; then
    # As `make build`: the commit goes into every run's start record, in release builds only
    # (set in a dev build, it would make cargo rebuild the trainer that `make test` built).
    if [[ $profile == release ]]; then
        # The image passes it in (its build context has no .git).
        FAIRYZERO_COMMIT=${FAIRYZERO_COMMIT:-$(git describe --always --dirty 2>/dev/null || true)}
        export FAIRYZERO_COMMIT
    fi
    cargo build --locked "${flags[@]}" --bin fairyzero --bin fairyzero-torch
else
    for bin in fairyzero fairyzero-torch; do
        [[ -x $out/$bin ]] || die "FAIRYZERO_BUILD=0 but $out/$bin is not built (make build, or cargo build --workspace --bins)"
    done
fi

# --- 5. Install. `install` replaces each file by a new inode, so a binary that is running
# (a worker on this node) keeps its old copy instead of failing with "text file busy".
mkdir -p "$PREFIX/bin"
for bin in fairyzero fairyzero-torch; do
    install -m 0755 "$out/$bin" "$PREFIX/bin/$bin.new"
    # Release binaries carry 100+ MB of debug info that nobody in a container reads.
    if [[ $profile == release ]] && command -v strip >/dev/null; then
        strip --strip-debug "$PREFIX/bin/$bin.new"
    fi
    mv -f "$PREFIX/bin/$bin.new" "$PREFIX/bin/$bin"
done
for dir in configs models; do
    rm -rf "${PREFIX:?}/$dir.new"
    cp -R "$repo/$dir" "$PREFIX/$dir.new"
    rm -rf "${PREFIX:?}/$dir"
    mv "$PREFIX/$dir.new" "$PREFIX/$dir"
done

# --- 6. Check what was installed, as a user runs it: no LD_LIBRARY_PATH, so the helper must
# find libtorch through its RUNPATH (`--version` runs the helper and prints libtorch's version).
version=$(env -u LD_LIBRARY_PATH "$PREFIX/bin/fairyzero" --version) ||
    die "the installed $PREFIX/bin/fairyzero --version failed"
say "installed into $PREFIX: $(echo "$version" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
