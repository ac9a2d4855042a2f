const ROOT = new URL('../../', import.meta.url).pathname

/**
 * A TimescaleDB instance of its own (scripts/testdb.sh) that a test may stop and start:
 * the shared test database must stay up for the other files.
 */
export async function startOwnTimescale(name: string) {
  const env = { ...process.env, TESTDB_NAME: name, TESTDB_OWNER_PID: String(process.pid) }
  const run = async (cmd: string) => {
    const p = Bun.spawn(['bash', `${ROOT}scripts/testdb.sh`, cmd], { env, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    if (code !== 0) throw new Error(`testdb.sh ${cmd} failed (${code}): ${err.trim().split('\n').pop()}`)
    return out.trim()
  }
  const url = await run('start')
  /** `cmd` with this process's event loop blocked until it ends (a busy process meeting the change). */
  const runBlocking = (cmd: string) => {
    const p = Bun.spawnSync(['bash', `${ROOT}scripts/testdb.sh`, cmd], { env, stdout: 'ignore', stderr: 'pipe' })
    if (p.exitCode !== 0) throw new Error(`testdb.sh ${cmd} failed (${p.exitCode}): ${p.stderr.toString().trim().split('\n').pop()}`)
  }
  return {
    url,
    /** Stop the server, keeping its data (connections refused). */
    pause: () => run('pause'),
    resume: () => run('resume'),
    /** pause and resume, with this process's event loop blocked while the server stops or starts. */
    pauseBlocking: () => runBlocking('pause'),
    resumeBlocking: () => runBlocking('resume'),
    /** SIGSTOP the server and its backends: connections stay open, nothing answers. */
    freeze: () => run('freeze'),
    thaw: () => run('thaw'),
    stop: () => run('stop'),
    /** Start a hot-standby streaming replica of it (pg_basebackup); its URL. */
    replica: () => run('replica'),
    /** Stop the replica's server, keeping its data; `replicaResume` starts it again (it catches up). */
    replicaPause: () => run('replica-pause'),
    replicaResume: () => run('replica-resume'),
    replicaStop: () => run('replica-stop'),
    /** SIGSTOP the replica's server and backends (connections open, nothing answered); `replicaThaw` resumes it. */
    replicaFreeze: () => run('replica-freeze'),
    replicaThaw: () => run('replica-thaw'),
  }
}
