#!/bin/bash
# A git repository of part of the Linux kernel with real history, for the issue-20 measurements
# (benchmarks/RESULTS.md, "The Linux kernel"): Debian's linux-source-6.1 tree (its patches
# applied), the last mana patches of Debian's series reversed into a base commit, then applied
# one commit each (git am: their From, Date and Subject).
#
#   benchmarks/kernel_repo.sh SOURCE_TREE DEBIAN_PATCHES_DIR OUT [FIRST_PATCH]
#
# SOURCE_TREE: the extracted linux-source-6.1 (6.1.176-1); DEBIAN_PATCHES_DIR: debian/patches of
# linux_6.1.176-1.debian.tar.xz; FIRST_PATCH: the first of the series' ethernet-microsoft
# patches to replay (default 6: patches 0006-0045, 40 commits). Nothing of the kernel is kept in
# this project.
set -euo pipefail
src=$1 patches=$2/features/all/ethernet-microsoft out=$3 first=${4:-6}
rm -rf "$out"
mkdir -p "$out/drivers/net/ethernet"
cp -a "$src"/{kernel,mm,net,include,block,lib,MAINTAINERS} "$out/"
cp -a "$src/drivers/net/ethernet/microsoft" "$out/drivers/net/ethernet/"
cd "$out"
git init -q
git config user.email bench@example.invalid
git config user.name bench
for i in $(seq 45 -1 "$first"); do
  git apply -R -p1 "$(ls "$patches"/"$(printf %04d "$i")"-*.patch)"
done
git add -A
git commit -qm "base: linux-source-6.1 6.1.176-1 (kernel mm net include block lib, the mana driver), mana patches $first-45 reversed"
for i in $(seq "$first" 45); do
  git am -q -p1 "$(ls "$patches"/"$(printf %04d "$i")"-*.patch)"
done
git log --oneline | wc -l
