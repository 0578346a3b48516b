# shellcheck shell=bash
# Classpaths for the JVM services, resolved from Maven Central by tools/infra/maven/<name>/pom.xml.
#
# `mvn dependency:build-classpath` writes the jar list to .infra/classpath/<name>.txt. The jars
# themselves stay in the local Maven repository (~/.m2), shared by every work tree. Maven (a JVM
# start of several seconds) only runs again when the pom changed or a listed jar disappeared.

# Prints the path of the classpath file for $1 (kafka|cassandra), resolving it first if needed.
classpath_file() {
  local name=$1
  local pom="$INFRA_DIR/maven/$name/pom.xml"
  local dir="$INFRA_STATE/classpath"
  local out="$dir/$name.txt" stamp="$dir/$name.pom.sha256"
  local want have=""
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  [[ -f "$stamp" ]] && have="$(cat "$stamp")"
  if [[ -s "$out" && "$want" == "$have" ]] && classpath_complete "$out"; then
    printf '%s' "$out"
    return 0
  fi

  command -v mvn >/dev/null || die "mvn is not on the PATH (apt-get install maven)"
  require_java17
  mkdir -p "$dir"
  local t0 mlog="$dir/$name.mvn.log"
  t0=$(now_ms)
  log "resolving $name jars with Maven (first run on an empty ~/.m2 downloads them; log: ${mlog#"$REPO_ROOT"/})"
  # JAVA_HOME pins Maven itself to Java 17 too, so it behaves the same on machines whose default
  # java is newer. Cassandra's poms make Maven print harmless warnings (invalid sjk-* poms), so
  # the log is only shown when Maven fails.
  if ! JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA_BIN")")")" \
      mvn -B -f "$pom" dependency:build-classpath \
        -Dmdep.outputFile="$out.tmp" -Dmdep.includeScope=runtime > "$mlog" 2>&1; then
    tail_logs "$mlog"
    die "Maven could not resolve the $name classpath (see $mlog)"
  fi
  mv "$out.tmp" "$out"
  printf '%s\n' "$want" > "$stamp"
  log "$name classpath ready ($(tr ':' '\n' < "$out" | wc -l) jars, $(elapsed "$t0"))"
  printf '%s' "$out"
}

# True when every jar listed in classpath file $1 exists (e.g. ~/.m2 was not wiped meanwhile).
classpath_complete() {
  local jar
  while IFS= read -r -d ':' jar; do
    [[ -f "$jar" ]] || return 1
  done < <(tr -d '\n' < "$1"; printf ':')
  return 0
}
