// Native crashes after symbolication (Breakpad): `module` is the image's file name, `function` the
// symbol's name as the platform's dump_syms writes it — with parameter lists and `const` on Linux
// and macOS (`SceneGraph::update(double)`, `Mesh::bounds() const`), without them on Windows from a
// PDB (`SceneGraph::update`); anonymous namespaces as `(anonymous namespace)::` or
// `` `anonymous namespace':: ``; lambdas as GCC's `{lambda()#1}` or MSVC's `<lambda_39a4…>` whose
// hash changes per build; template arguments, libc++'s `std::__1::`, a JSON library's versioned
// ABI namespace. System frames have names only (PUBLIC symbols) and change with the glibc or OS
// version; a GPU driver without symbols gives bare addresses. The crash type is the OS's name for
// the signal: the same bug is SIGSEGV on Linux and EXCEPTION_ACCESS_VIOLATION_READ on Windows.
import { App, envelope, occurrences } from '../common.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry, CorpusFrame } from '../types.js';

const CATEGORY = 'native';

type Os = 'linux' | 'windows' | 'macos';

/** One frame: the symbol per OS (a string when all agree), the image, and the source position (none for system code). */
interface NativeSite {
  fn: string | Partial<Record<Os, string>>;
  image: 'exe' | 'lib' | string;
  file?: string;
  line?: number;
}

const IMAGES: Record<Os, { exe: string; lib: string }> = {
  linux: { exe: 'atlas-viewer', lib: 'libatlas.so' },
  windows: { exe: 'atlas-viewer.exe', lib: 'atlas.dll' },
  macos: { exe: 'Atlas Viewer', lib: 'libatlas.dylib' },
};

/** Where CI built the release (Breakpad FILE records keep the absolute path). */
function sourceRoot(os: Os, rng: Random): string {
  if (os === 'windows') return rng.pick(['C:\\b\\atlas', 'D:\\a\\atlas\\atlas']);
  if (os === 'macos') return '/Users/runner/work/atlas/atlas';
  return rng.pick(['/builds/atlas/atlas', '/home/runner/work/atlas/atlas']);
}

const app = new App('atlas-viewer', ['5.3.0', '5.3.1', '5.4.0', '5.5.0']);

/** Program and thread entry, oldest first, per OS and (Linux) glibc version. */
function entry(os: Os, rng: Random, thread: boolean): NativeSite[] {
  if (os === 'windows') {
    return thread
      ? [
          { fn: 'RtlUserThreadStart', image: 'ntdll.dll' },
          { fn: 'BaseThreadInitThunk', image: 'kernel32.dll' },
          { fn: 'thread_start<unsigned int (__cdecl*)(void *),1>', image: 'ucrtbase.dll' },
        ]
      : [
          { fn: 'RtlUserThreadStart', image: 'ntdll.dll' },
          { fn: 'BaseThreadInitThunk', image: 'kernel32.dll' },
          { fn: '__scrt_common_main_seh', image: 'exe', file: 'D:\\a\\_work\\1\\s\\src\\vctools\\crt\\vcstartup\\src\\startup\\exe_common.inl', line: 288 },
          { fn: 'WinMain', image: 'exe', file: 'src/app/main_win.cpp', line: 21 },
        ];
  }
  if (os === 'macos') {
    return thread
      ? [
          { fn: 'thread_start', image: 'libsystem_pthread.dylib' },
          { fn: '_pthread_start', image: 'libsystem_pthread.dylib' },
        ]
      : [
          { fn: 'start', image: 'dyld' },
          { fn: 'main', image: 'exe', file: 'src/app/main.cpp', line: 14 },
        ];
  }
  const glibc235 = rng.chance(0.6);
  if (thread)
    return glibc235
      ? [
          { fn: '__clone3', image: 'libc.so.6' },
          { fn: 'start_thread', image: 'libc.so.6' },
        ]
      : [
          { fn: 'clone', image: 'libc.so.6' },
          { fn: 'start_thread', image: 'libpthread.so.0' },
        ];
  return glibc235
    ? [
        { fn: '_start', image: 'exe' },
        { fn: '__libc_start_main_impl', image: 'libc.so.6' },
        { fn: '__libc_start_call_main', image: 'libc.so.6' },
        { fn: 'main', image: 'exe', file: 'src/app/main.cpp', line: 14 },
      ]
    : [
        { fn: '_start', image: 'exe' },
        { fn: '__libc_start_main', image: 'libc.so.6' },
        { fn: 'main', image: 'exe', file: 'src/app/main.cpp', line: 14 },
      ];
}

/** `abort()` as glibc 2.35+ or 2.31 shows it (innermost last). */
function abortFrames(rng: Random): NativeSite[] {
  return rng.chance(0.6)
    ? [
        { fn: 'abort', image: 'libc.so.6' },
        { fn: 'raise', image: 'libc.so.6' },
        { fn: '__pthread_kill_internal', image: 'libc.so.6' },
        { fn: '__pthread_kill_implementation', image: 'libc.so.6' },
      ]
    : [
        { fn: 'abort', image: 'libc.so.6' },
        { fn: 'raise', image: 'libc.so.6' },
      ];
}

function render(sites: readonly NativeSite[], os: Os, release: number, rng: Random): CorpusFrame[] {
  const root = sourceRoot(os, rng);
  // ASLR: every run loads each image at another address.
  const bases = new Map<string, bigint>();
  const base = (image: string) => {
    if (!bases.has(image)) bases.set(image, BigInt(os === 'windows' ? `0x7ff${rng.hex(5)}0000` : `0x7f${rng.hex(7)}000`));
    return bases.get(image)!;
  };
  return sites.map((site) => {
    const fn = typeof site.fn === 'string' ? site.fn : site.fn[os];
    const image = site.image === 'exe' || site.image === 'lib' ? IMAGES[os][site.image] : site.image;
    const offset = BigInt(app.build(release, `${image}:${fn ?? 'anon'}:${site.line ?? 0}`).int(0x1000, 0x3fffff));
    const frame: CorpusFrame = { instruction_addr: `0x${(base(image) + offset).toString(16)}` };
    // A driver shipped without symbols: only the address.
    if (fn === undefined) return frame;
    frame.function = fn;
    frame.module = image;
    if (site.file !== undefined && site.line !== undefined) {
      const relative = os === 'windows' ? site.file.replaceAll('/', '\\') : site.file;
      frame.filename = site.file.startsWith('/') || site.file.includes(':\\') ? site.file : `${root}${os === 'windows' ? '\\' : '/'}${relative}`;
      frame.lineno = site.line + (site.image === 'exe' || site.image === 'lib' ? app.shift(release, site.file) : 0);
    }
    return frame;
  });
}

type Crash = 'segv' | 'abort' | 'stack-cookie';

const CRASH: Record<Crash, Record<Os, (rng: Random, address: string) => { type: string; value: string }>> = {
  segv: {
    linux: (_rng, address) => ({ type: 'SIGSEGV', value: `Fatal Error: SIGSEGV / SEGV_MAPERR at ${address}` }),
    windows: (_rng, address) => ({ type: 'EXCEPTION_ACCESS_VIOLATION_READ', value: `Fatal Error: EXCEPTION_ACCESS_VIOLATION_READ at ${address}` }),
    macos: (_rng, address) => ({ type: 'EXC_BAD_ACCESS', value: `Fatal Error: EXC_BAD_ACCESS / KERN_INVALID_ADDRESS at ${address}` }),
  },
  abort: {
    linux: () => ({ type: 'SIGABRT', value: 'Fatal Error: SIGABRT' }),
    windows: () => ({ type: 'EXCEPTION_BREAKPOINT', value: 'Fatal Error: EXCEPTION_BREAKPOINT' }),
    macos: () => ({ type: 'SIGABRT', value: 'Fatal Error: SIGABRT' }),
  },
  'stack-cookie': {
    linux: () => ({ type: 'SIGABRT', value: 'Fatal Error: SIGABRT' }),
    windows: () => ({ type: 'STATUS_STACK_BUFFER_OVERRUN', value: 'Fatal Error: STATUS_STACK_BUFFER_OVERRUN / FAST_FAIL_STACK_COOKIE_CHECK_FAILURE' }),
    macos: () => ({ type: 'SIGABRT', value: 'Fatal Error: SIGABRT' }),
  },
};

interface NativeBug {
  id: string;
  count: readonly [number, number];
  oses: ReadonlyArray<readonly [Os, number]>;
  thread?: boolean;
  crash: Crash;
  /** The faulting address: a null member's offset, or anywhere (a freed object). */
  address: (rng: Random) => string;
  stack: (os: Os, rng: Random, release: number) => NativeSite[];
}

function nativeBug(bug: NativeBug): CorpusEntry[] {
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const os = rng.weighted(bug.oses);
    const release = app.pickRelease(rng);
    const sites = [...entry(os, rng, bug.thread ?? false), ...bug.stack(os, rng, release)];
    return envelope(rng, {
      release: app.release(release),
      platform: 'native',
      level: 'fatal',
      exception: { ...CRASH[bug.crash][os](rng, bug.address(rng)), stacktrace: render(sites, os, release, rng) },
      tags: { os: { linux: 'Ubuntu 22.04', windows: 'Windows 11', macos: 'macOS 14.5' }[os] },
    });
  });
}

const nullMember = (offset: number) => () => `0x${offset.toString(16).padStart(16, '0')}`;
const anywhere = (rng: Random) => `0x00007f${rng.hex(10)}`;

/** The frame loop shared by the scene bugs (oldest first). */
const TICK: NativeSite[] = [
  { fn: { linux: 'atlas::App::run()', windows: 'atlas::App::run', macos: 'atlas::App::run()' }, image: 'lib', file: 'src/app/app.cpp', line: 88 },
  {
    fn: { linux: 'atlas::Engine::tick(double)', windows: 'atlas::Engine::tick', macos: 'atlas::Engine::tick(double)' },
    image: 'lib',
    file: 'src/engine/engine.cpp',
    line: 140,
  },
];

/** A renderer method calling into OpenGL, crashing in the driver's own code (no symbols: addresses only). */
function driverBug(id: string, count: readonly [number, number], caller: NativeSite['fn'], line: number, gl: string): NativeBug {
  return {
    id,
    count,
    oses: [
      ['linux', 1],
      ['windows', 2],
    ],
    crash: 'segv',
    address: anywhere,
    stack: (os, rng) => [
      ...TICK,
      { fn: caller, image: 'lib', file: 'src/render/gl/renderer.cpp', line },
      { fn: gl, image: os === 'linux' ? 'libGLX_nvidia.so.0' : 'opengl32.dll' },
      ...Array.from({ length: rng.int(2, 4) }, (): NativeSite => ({ fn: {}, image: os === 'linux' ? 'libnvidia-glcore.so.550.90.07' : 'nvoglv64.dll' })),
    ],
  };
}

const BUGS: NativeBug[] = [
  {
    id: 'scene-update-null-node',
    count: [10, 20],
    oses: [
      ['windows', 3],
      ['linux', 2],
    ],
    crash: 'segv',
    address: nullMember(0x10),
    stack: () => [
      ...TICK,
      { fn: { linux: 'atlas::SceneGraph::update(double)', windows: 'atlas::SceneGraph::update' }, image: 'lib', file: 'src/scene/graph.cpp', line: 212 },
      { fn: { linux: 'atlas::Node::worldTransform() const', windows: 'atlas::Node::worldTransform' }, image: 'lib', file: 'src/scene/node.cpp', line: 57 },
    ],
  },
  {
    // The same loop and scene graph; the crash is in culling.
    id: 'scene-cull-null-camera',
    count: [5, 12],
    oses: [
      ['windows', 3],
      ['linux', 2],
    ],
    crash: 'segv',
    address: nullMember(0x48),
    stack: () => [
      ...TICK,
      { fn: { linux: 'atlas::SceneGraph::update(double)', windows: 'atlas::SceneGraph::update' }, image: 'lib', file: 'src/scene/graph.cpp', line: 219 },
      {
        fn: { linux: 'atlas::SceneGraph::cull(atlas::Camera const&)', windows: 'atlas::SceneGraph::cull' },
        image: 'lib',
        file: 'src/scene/graph.cpp',
        line: 301,
      },
    ],
  },
  {
    // A loader callback on the thread pool: GCC's `{lambda()#1}` and MSVC's `<lambda_…>` (hash per build).
    id: 'resource-loader-callback-freed',
    count: [8, 16],
    oses: [
      ['windows', 3],
      ['linux', 2],
    ],
    thread: true,
    crash: 'segv',
    address: anywhere,
    stack: (_os, _rng, release) => {
      const lambda = `<lambda_${app.build(release, 'msvc-lambda').hex(32)}>`;
      return [
        { fn: { linux: 'atlas::ThreadPool::worker()', windows: 'atlas::ThreadPool::worker' }, image: 'lib', file: 'src/core/thread_pool.cpp', line: 61 },
        {
          fn: {
            linux:
              'std::_Function_handler<void (), atlas::(anonymous namespace)::ResourceLoader::loadAsync(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)::{lambda()#1}>::_M_invoke(std::_Any_data const&)',
            windows: `std::_Func_impl_no_alloc<${lambda},void>::_Do_call`,
          },
          image: 'lib',
          file: 'src/core/thread_pool.cpp',
          line: 64,
        },
        {
          fn: {
            linux:
              'atlas::(anonymous namespace)::ResourceLoader::loadAsync(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)::{lambda()#1}::operator()() const',
            windows: `atlas::\`anonymous namespace'::ResourceLoader::loadAsync::__l2::${lambda}::operator()`,
          },
          image: 'lib',
          file: 'src/resources/loader.cpp',
          line: 133,
        },
        {
          fn: { linux: 'atlas::ResourceCache::insert(atlas::ResourceHandle)', windows: 'atlas::ResourceCache::insert' },
          image: 'lib',
          file: 'src/resources/cache.cpp',
          line: 45,
        },
      ];
    },
  },
  {
    // `_GLIBCXX_ASSERTIONS` catching an out-of-range index in a pool (template arguments in the names).
    id: 'texture-pool-index-assert',
    count: [6, 14],
    oses: [['linux', 1]],
    crash: 'abort',
    address: () => '0x0',
    stack: (_os, rng) => [
      ...TICK,
      { fn: 'atlas::Renderer::uploadPending()', image: 'lib', file: 'src/render/renderer.cpp', line: 410 },
      { fn: 'atlas::Pool<atlas::Texture, 64ul>::acquire()', image: 'lib', file: 'src/core/pool.hpp', line: 37 },
      {
        fn: 'std::vector<atlas::Texture*, std::allocator<atlas::Texture*> >::operator[](unsigned long)',
        image: 'lib',
        file: '/usr/include/c++/12/bits/stl_vector.h',
        line: 1123,
      },
      { fn: 'std::__glibcxx_assert_fail(char const*, int, char const*, char const*)', image: 'libstdc++.so.6' },
      ...abortFrames(rng),
    ],
  },
  {
    // An uncaught exception from a JSON library whose ABI namespace changes with its version.
    id: 'settings-json-missing-key',
    count: [6, 14],
    oses: [['linux', 1]],
    crash: 'abort',
    address: () => '0x0',
    stack: (_os, rng, release) => {
      const json = `nlohmann::json_abi_v3_11_${release < 2 ? 2 : 3}::basic_json<std::map, std::vector, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, bool, long, unsigned long, double, std::allocator, nlohmann::json_abi_v3_11_${release < 2 ? 2 : 3}::adl_serializer, std::vector<unsigned char, std::allocator<unsigned char> >, void>`;
      return [
        { fn: 'atlas::App::init(int, char**)', image: 'lib', file: 'src/app/app.cpp', line: 41 },
        { fn: 'atlas::Settings::load(std::filesystem::__cxx11::path const&)', image: 'lib', file: 'src/app/settings.cpp', line: 29 },
        {
          fn: `${json}::at(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)`,
          image: 'lib',
          file: 'third_party/nlohmann/json.hpp',
          line: 21107,
        },
        { fn: '__cxa_throw', image: 'libstdc++.so.6' },
        { fn: 'std::terminate()', image: 'libstdc++.so.6' },
        { fn: '__cxxabiv1::__terminate(void (*)())', image: 'libstdc++.so.6' },
        { fn: '__gnu_cxx::__verbose_terminate_handler()', image: 'libstdc++.so.6' },
        ...abortFrames(rng),
      ];
    },
  },
  {
    id: 'mixer-stack-cookie',
    count: [5, 12],
    oses: [['windows', 1]],
    thread: true,
    crash: 'stack-cookie',
    address: nullMember(0),
    stack: () => [
      { fn: 'atlas::AudioThread::run', image: 'lib', file: 'src/audio/thread.cpp', line: 33 },
      { fn: 'atlas::Mixer::mix', image: 'lib', file: 'src/audio/mixer.cpp', line: 97 },
      { fn: 'atlas::Resampler::process', image: 'lib', file: 'src/audio/resampler.cpp', line: 140 },
      { fn: '__report_gsfailure', image: 'lib', file: 'D:\\a\\_work\\1\\s\\src\\vctools\\crt\\vcstartup\\src\\gs\\gs_report.c', line: 220 },
    ],
  },
  {
    id: 'plugin-dispatch-unknown-event',
    count: [4, 10],
    oses: [['linux', 1]],
    crash: 'segv',
    address: nullMember(0x8),
    stack: () => [
      ...TICK,
      { fn: 'atlas::EventBus::flush()', image: 'lib', file: 'src/core/events.cpp', line: 77 },
      { fn: '(anonymous namespace)::PluginHost::dispatch(atlas::Event const&)', image: 'lib', file: 'src/plugins/host.cpp', line: 150 },
      { fn: '(anonymous namespace)::callHandler(atlas::Plugin*, atlas::Event const&)', image: 'lib', file: 'src/plugins/host.cpp', line: 62 },
    ],
  },
  // Inside the GPU driver (no symbols), under the draw submission or under a texture upload: two bugs.
  driverBug(
    'gpu-driver-submit',
    [8, 16],
    { linux: 'atlas::gl::Renderer::submit(atlas::gl::CommandBuffer&)', windows: 'atlas::gl::Renderer::submit' },
    512,
    'glDrawElementsInstanced',
  ),
  driverBug(
    'gpu-driver-texture-upload',
    [5, 12],
    { linux: 'atlas::gl::Renderer::uploadTexture(atlas::Texture&)', windows: 'atlas::gl::Renderer::uploadTexture' },
    388,
    'glTexSubImage2D',
  ),
  {
    // macOS only: Objective-C frames, libc++'s `std::__1::`.
    id: 'shader-cache-load-mac',
    count: [5, 12],
    oses: [['macos', 1]],
    crash: 'segv',
    address: nullMember(0x20),
    stack: () => [
      { fn: 'NSApplicationMain', image: 'AppKit' },
      { fn: '-[NSApplication run]', image: 'AppKit' },
      { fn: '-[AtlasAppDelegate tick:]', image: 'exe', file: 'src/app/mac/AppDelegate.mm', line: 58 },
      { fn: 'atlas::Engine::tick(double)', image: 'lib', file: 'src/engine/engine.cpp', line: 140 },
      {
        fn: 'atlas::ShaderCache::load(std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> > const&)',
        image: 'lib',
        file: 'src/render/shader_cache.cpp',
        line: 73,
      },
      { fn: 'atlas::ShaderCache::Entry::compile() const', image: 'lib', file: 'src/render/shader_cache.cpp', line: 121 },
    ],
  },
];

export const native: Category = {
  name: CATEGORY,
  description:
    'Symbolicated C++ crashes: names with/without parameter lists and const, anonymous namespaces, GCC vs MSVC lambdas (per-build hashes), templates, system frames by OS/glibc, driver frames without symbols, OS-specific crash types',
  build: (): CorpusEntry[] => BUGS.flatMap(nativeBug),
};
