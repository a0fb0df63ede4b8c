# Sourced by scripts/demo and scripts/test: say what a first build does and
# roughly how long it takes, so no minute of it is silent.
# Usage: first_build_note <script name> <cargo profile directory: release | debug>
first_build_note() {
  local who="$1" profile="$2" cache="target/verilator-cache"
  local missing=0
  for arch in sunda cayman mariana; do
    [ -f "$cache/V$arch/verilate.stamp" ] || missing=$((missing + 1))
  done
  if [ ! -d "target/$profile" ]; then
    echo "$who: first build on this machine: the Rust workspace and $missing Verilator model(s), one per" >&2
    local mins=5
    [ "$profile" = debug ] && mins=11
    echo "$who:   generation (about $mins minutes on 2 cores; each model about 35 s of it; the models are" >&2
    echo "$who:   shared by every profile), then the run." >&2
    # A first test build leaves about 4 GiB in target/ (line tables only; see
    # docs/performance.md); say so before rustc fails with ENOSPC mid-build.
    local need_kib=$((5 * 1024 * 1024)) free_kib
    free_kib=$(df -Pk . | awk 'NR == 2 { print $4 }')
    if [ -n "$free_kib" ] && [ "$free_kib" -lt "$need_kib" ]; then
      echo "$who: warning: $((free_kib / 1024)) MiB free on this disk; a first build needs about 5 GiB." >&2
    fi
  elif [ "$missing" -gt 0 ]; then
    echo "$who: building $missing Verilator model(s), one per generation (about 35 s each on 2 cores)." >&2
  fi
}
