// JVM class and method names, version 2: without what bytecode generators and the JDK make up per
// run, per build or per version (proxies, lambdas, reflection accessors, JDK module prefixes).
import { memoize } from '../../../memo.js';

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
