// JVM class and method names, version 2: without what bytecode generators and the JDK make up per
// run, per build or per version (proxies, lambdas, reflection accessors, JDK module prefixes).
import { memoize } from '../memo.js';

/** `java.base/java.lang.Thread`, `app//com.example.Main`, `java.base@17.0.2/…`: the class loader or module. */
const MODULE_PREFIX = /^[^/]*\/\/?/;
const GENERATED_CLASS_SUFFIXES: ReadonlyArray<[RegExp, string]> = [
  // Spring and cglib: `$$EnhancerBySpringCGLIB$$32e64f86`, `$$FastClassBySpringCGLIB$$…`, Spring 6 `$$SpringCGLIB$$0`.
  [/\$\$(?:EnhancerBy|FastClassBy)[A-Za-z]*\$\$[0-9a-f]+/g, ''],
  [/\$\$SpringCGLIB\$\$\d+/g, ''],
  // ByteBuddy, Hibernate, Mockito: `$HibernateProxy$sk3Lj2xQ`, `$ByteBuddy$abc`, `$MockitoMock$123`.
  [/\$(?:HibernateProxy|ByteBuddy|MockitoMock)\$[A-Za-z0-9]+/g, ''],
  // Javassist: `_$$_jvst1a2_3`, `_$$_javassist_123`.
  [/_\$\$_(?:jvst|javassist_)[0-9a-f_]+/g, ''],
  // Anonymous classes are numbered in the order the compiler meets them: `Foo$1`, `Foo$2$1`.
  [/(?:\$\d+)+(?=$|\$)/g, ''],
];
/** `$$Lambda$1581/0x00000008019b981c`, `$$Lambda/0x…`, `$$Lambda$12/1234567`: lambda classes, numbered per run. */
const LAMBDA_CLASS = /\$\$Lambda(?:\$\d+)?(?:\/(?:0x)?[0-9a-f]+)?/;
/** Frames the JDK (or its version) adds or hides: reflection, method handles, lambdas' own frames, dynamic proxies. */
const RUNTIME_CLASS =
  /^(?:sun\.reflect\.|jdk\.internal\.|java\.lang\.reflect\.|java\.lang\.invoke\.|com\.sun\.proxy\.|jdk\.proxy\d+\.)|(?:^|[.$])(?:Generated(?:Serialization)?(?:Method|Constructor)Accessor\d*)$/;
/** Method names numbered by the compiler or a generator: `lambda$fetchAll$0`, `access$000`, `CGLIB$save$3`. */
const NUMBERED_METHOD = /\$\d+$/;
/** Version 3: lambdas' own method names — javac's `lambda$fetchAll$0`, Kotlin 2.0's `applyCoupon$lambda$0` (and `$lambda$0$1`). */
const JAVAC_LAMBDA_PREFIX = 'lambda$';
const KOTLIN_LAMBDA_SUFFIX = '$lambda';
/** The numbers a compiler appends: `$0`, `$1$2`. */
const TRAILING_NUMBERS = /(?:\$\d{1,6}){1,3}$/;
/** A method's name (lower case first), as Kotlin 1.9 puts it in a lambda's class: `CheckoutViewModel$applyCoupon$1`. */
const METHOD_NAME = /^[a-z_]\w{0,200}$/;
const LONGEST = 512;
/** What a lambda class runs: `invoke`, `invokeSuspend` (Kotlin), `run`, `call`, `accept`, `apply` (functional interfaces). */
const LAMBDA_ENTRY = new Set(['invoke', 'invokeSuspend', 'run', 'call', 'accept', 'apply']);
/** Version 3: D8's synthetic lambda classes (`$$ExternalSyntheticLambda3`) and the coroutine machinery, which changes with kotlinx.coroutines. */
const RUNTIME_CLASS_V3 = /\$\$ExternalSynthetic[A-Za-z]{0,40}\d{0,6}$|^kotlinx?\.coroutines\./;
const LAMBDA_MARK = '{lambda}';

function normalizeClassNow(name: string): string {
  // The lambda's `/0x…` first, so that only a module prefix is left to end in `/`.
  let cls = name.trim().replace(LAMBDA_CLASS, '$$$$Lambda');
  if (cls.includes('/')) cls = cls.replace(MODULE_PREFIX, '');
  for (const [pattern, replacement] of GENERATED_CLASS_SUFFIXES) cls = cls.replace(pattern, replacement);
  return cls;
}

/** `com.example.OrderService$$EnhancerBySpringCGLIB$$32e64f86` -> `com.example.OrderService`; `java.base/java.lang.Thread` -> `java.lang.Thread`. */
export const normalizeJvmClass: (name: string) => string = memoize(normalizeClassNow);

/** `lambda$fetchAll$0` -> `lambda$fetchAll`, `access$000` -> `access`. */
export function normalizeJvmMethod(name: string): string {
  return name.trim().replace(NUMBERED_METHOD, '');
}

/** Reflection, method-handle, lambda-class and dynamic-proxy frames: which of them a trace shows depends on the JDK. */
export function isRuntimeJvmFrame(cls: string): boolean {
  return RUNTIME_CLASS.test(cls) || LAMBDA_CLASS.test(cls);
}

/**
 * Version 3: one name for a lambda however it was compiled — javac's `lambda$fetchAll$0`, Kotlin
 * 2.0's `fetchAll$lambda$0` and Kotlin 1.9's class `Outer$fetchAll$1` running `invoke` are all
 * `fetchAll{lambda}` in `Outer`. Other methods as normalizeJvmMethod gives them.
 */
function jvmFrameV3Now(rawClass: string | undefined, cls: string | undefined, method: string): JvmFrame {
  const name = method.trim().slice(0, LONGEST);
  const unnumbered = name.replace(TRAILING_NUMBERS, '');
  if (unnumbered !== name) {
    if (unnumbered.startsWith(JAVAC_LAMBDA_PREFIX)) return { cls, method: unnumbered.slice(JAVAC_LAMBDA_PREFIX.length) + LAMBDA_MARK };
    if (unnumbered.endsWith(KOTLIN_LAMBDA_SUFFIX)) return { cls, method: unnumbered.slice(0, -KOTLIN_LAMBDA_SUFFIX.length) + LAMBDA_MARK };
  }
  if (rawClass !== undefined && LAMBDA_ENTRY.has(name)) {
    const raw = rawClass.trim().slice(0, LONGEST);
    const outer = raw.replace(TRAILING_NUMBERS, '');
    const dollar = outer.lastIndexOf('$');
    if (outer !== raw && dollar > 0 && METHOD_NAME.test(outer.slice(dollar + 1))) {
      return { cls: normalizeJvmClass(outer.slice(0, dollar)), method: outer.slice(dollar + 1) + LAMBDA_MARK };
    }
  }
  return { cls, method: normalizeJvmMethod(name) };
}

export interface JvmFrame {
  cls: string | undefined;
  method: string;
}

const rememberedFrame = memoize((key: string): JvmFrame => {
  const cut = key.indexOf('\u0000');
  const rawClass = cut > 0 ? key.slice(0, cut) : undefined;
  return jvmFrameV3Now(rawClass, rawClass === undefined ? undefined : normalizeJvmClass(rawClass), key.slice(cut + 1));
});

/** See jvmFrameV3Now; `cls` is normalizeJvmClass(rawClass). */
export function normalizeJvmFrameV3(rawClass: string | undefined, method: string): JvmFrame {
  return rememberedFrame(`${rawClass ?? ''}\u0000${method}`);
}

/** Version 3's runtime frames: version 2's, D8's synthetic lambdas and kotlinx.coroutines. */
export const isRuntimeJvmFrameV3: (cls: string) => boolean = memoize((cls) => isRuntimeJvmFrame(cls) || RUNTIME_CLASS_V3.test(cls));
