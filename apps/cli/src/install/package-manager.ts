import { which } from './exec'

/** A system package manager and how it installs Caddy without asking. */
export interface PackageManager {
  name: 'apt' | 'dnf' | 'pacman' | 'zypper' | 'apk'
  /** Commands in order (e.g. refresh the package lists, then install). */
  installCaddy: string[][]
}

/**
 * The package managers tried, in this order. Caddy is in Debian ≥ 12, Ubuntu ≥ 23.04, Fedora and EPEL,
 * Arch, openSUSE and Alpine; elsewhere the install fails and the installer points to Caddy's docs.
 */
const MANAGERS: Array<{ bin: string; pm: (path: string) => PackageManager }> = [
  {
    bin: 'apt-get',
    pm: (p) => ({
      name: 'apt',
      installCaddy: [
        [p, 'update', '-q'],
        [p, 'install', '-y', '-q', 'caddy'],
      ],
    }),
  },
  { bin: 'dnf', pm: (p) => ({ name: 'dnf', installCaddy: [[p, 'install', '-y', 'caddy']] }) },
  {
    bin: 'pacman',
    pm: (p) => ({ name: 'pacman', installCaddy: [[p, '-S', '--noconfirm', '--needed', 'caddy']] }),
  },
  {
    bin: 'zypper',
    pm: (p) => ({ name: 'zypper', installCaddy: [[p, '--non-interactive', 'install', 'caddy']] }),
  },
  { bin: 'apk', pm: (p) => ({ name: 'apk', installCaddy: [[p, 'add', 'caddy']] }) },
]

/** The first package manager on PATH, or undefined when there is none. */
export function findPackageManager(path: string | undefined): PackageManager | undefined {
  for (const m of MANAGERS) {
    const bin = which(m.bin, path)
    if (bin) return m.pm(bin)
  }
  return undefined
}
