# Sourced by scripts/demo and scripts/test: say what a first build does and
# roughly how long it takes, so no minute of it is silent.
first_build_note() {
  local who="$1" cache="target/verilator-cache"
  local missing=0
  for arch in sunda cayman mariana; do
    [ -f "$cache/V$arch/verilate.stamp" ] || missing=$((missing + 1))
  done
  if [ ! -d target/release ] && [ ! -d target/debug ]; then
    echo "$who: first build on this machine: the Rust workspace (about 4 minutes on 2 cores)," >&2
    echo "$who:   then $missing Verilator model(s), one per generation (about 20 s each), then the run." >&2
  elif [ "$missing" -gt 0 ]; then
    echo "$who: building $missing Verilator model(s), one per generation (about 20 s each)." >&2
  fi
}
