export LD_LIBRARY_PATH=$PWD/build-gpu/devlibs
M=.devdata/shared/benchmarks/prism/mdps
for spec in "consensus/coin6.nm K=2" "leader_async/leader6.nm K=1" "csma/csma3_4.nm k=1" "wlan/wlan5.nm TRANS_TIME_MAX=10"; do
  set -- $spec
  for t in 1 16; do for r in 1 2 3; do
    echo "## $1 t=$t"; build-gpu/tools/mdpvi -v check $M/$1 --const $2 --threads $t --prop 'Pmax=? [ F true ]' 2>&1 | grep -E "phases|busy|build time|states"
  done; done
done
