// JVM stack frames as SDKs send them: `module` = the class, `function` = the method. Names the
// JVM or a framework generates change from run to run or release to release:
// - Spring CGLIB proxies: `OrderService$$EnhancerBySpringCGLIB$$32e64f86` / `$$FastClassBySpringCGLIB$$…`
//   (Spring 5; the hash changes per run), Spring 6's `OrderService$$SpringCGLIB$$0`;
// - lambdas: `OrderService$$Lambda$1581/0x00000008019b981c` (JDK 11–17: counter and address per
//   run), `$$Lambda$15/1234567890` (JDK 8), `$$Lambda/0x000001f0…` (JDK 21), and the synthetic
//   `lambda$fetchAll$0` whose index changes when lambdas are added;
// - reflection: JDK 8 `sun.reflect.NativeMethodAccessorImpl.invoke0` or `sun.reflect.GeneratedMethodAccessor123`,
//   JDK 11/17 `jdk.internal.reflect.*`, JDK 21 `jdk.internal.reflect.DirectMethodHandleAccessor`;
// - JDK proxies `com.sun.proxy.$Proxy142` (8) / `jdk.proxy2.$Proxy142` (17+), Hibernate's ByteBuddy
//   `$HibernateProxy$sk3Lj2xQ` and Javassist `_$$_jvst1a2_3` proxies.
import type { App } from './common.js';
import type { Random } from './random.js';
import type { CorpusFrame } from './types.js';

export type Jdk = 8 | 11 | 17 | 21;

/** How the frames reach Faultline. */
export type JavaSdk =
  /** Sentry's Java SDK with `inAppIncludes: com.acme`: in_app set, simple type + package. */
  | 'sentry'
  /** A log appender forwarding `printStackTrace` text: no in_app, JDK module prefixes (`java.base/`) kept, qualified type. */
  | 'appender';

/** One frame: class, method, line (absent: `Unknown Source`), file (default: the outer class's `.java`; null: none). */
export interface JavaSite {
  cls: string;
  method: string;
  line?: number;
  file?: string | null;
}

/** A JVM process: what changes from one run (deploy, restart, pod) to the next. */
export interface JvmRun {
  jdk: Jdk;
  rng: Random;
}

export interface JavaApp {
  app: App;
  sdk: JavaSdk;
  /** The JDKs the fleet runs in a release (a rollout runs two at once). */
  jdks: (release: number) => readonly Jdk[];
  spring: (release: number) => SpringVersion;
}

/** A JVM run: the same pod in the same release gives the same hashes, counters and addresses. */
export function jvmRun(on: JavaApp, release: number, rng: Random): JvmRun {
  const jdk = rng.pick(on.jdks(release));
  const pod = rng.int(0, 3);
  return { jdk, rng: on.app.build(release, `jvm:${jdk}:${pod}`) };
}

export const j = (cls: string, method: string, line?: number, file?: string | null): JavaSite => ({ cls, method, line, file });

const JDK_MODULES: ReadonlyArray<readonly [string, string]> = [
  ['java.', 'java.base'],
  ['jdk.internal.', 'java.base'],
  ['sun.nio.', 'java.base'],
  ['java.sql.', 'java.sql'],
];

function defaultFile(cls: string): string {
  const simple = cls.slice(cls.lastIndexOf('.') + 1);
  const outer = simple.split('$')[0];
  return `${outer}.java`;
}

/** The frames an SDK sends for `sites` (oldest first). */
export function renderJava(sites: readonly JavaSite[], sdk: JavaSdk, jdk: Jdk, appPackage = 'com.acme.'): CorpusFrame[] {
  return sites.map((site) => {
    let module = site.cls;
    if (sdk === 'appender' && jdk >= 11) {
      const jdkModule = JDK_MODULES.find(([prefix]) => site.cls.startsWith(prefix))?.[1] ?? (/^jdk\.proxy\d+\./.exec(site.cls)?.[0].slice(0, -1) || undefined);
      if (jdkModule !== undefined) module = `${jdkModule}/${site.cls}`;
    }
    const frame: CorpusFrame = { module, function: site.method };
    const file = site.file === undefined ? (site.line === undefined ? undefined : defaultFile(site.cls)) : site.file;
    if (file !== null && file !== undefined) frame.filename = file;
    if (site.line !== undefined) frame.lineno = site.line;
    if (sdk === 'sentry') frame.in_app = site.cls.startsWith(appPackage);
    return frame;
  });
}

/** An exception's type as the SDK sends it: Sentry splits package and simple name. */
export function javaType(qualified: string, sdk: JavaSdk): { type: string; module?: string } {
  if (sdk === 'appender') return { type: qualified };
  const dot = qualified.lastIndexOf('.');
  return { type: qualified.slice(dot + 1), module: qualified.slice(0, dot) };
}

// ---------------------------------------------------------------------------------------------
// What the JVM and frameworks generate
// ---------------------------------------------------------------------------------------------

/** `Method.invoke` and what is under it, oldest first (the caller of Method.invoke comes before). */
export function reflection(run: JvmRun, inflated: boolean): JavaSite[] {
  const { jdk, rng } = run;
  if (jdk === 21) return [j('java.lang.reflect.Method', 'invoke', 580), j('jdk.internal.reflect.DirectMethodHandleAccessor', 'invoke', 103)];
  const pkg = jdk === 8 ? 'sun.reflect' : 'jdk.internal.reflect';
  const methodLine = { 8: 498, 11: 566, 17: 568 }[jdk];
  const head = [j('java.lang.reflect.Method', 'invoke', methodLine), j(`${pkg}.DelegatingMethodAccessorImpl`, 'invoke', 43)];
  if (inflated) return [...head, j(`${pkg}.GeneratedMethodAccessor${rng.int(40, 900)}`, 'invoke')];
  return [...head, j(`${pkg}.NativeMethodAccessorImpl`, 'invoke', jdk === 17 ? 77 : 62), j(`${pkg}.NativeMethodAccessorImpl`, 'invoke0', undefined, null)];
}

/** A lambda's proxy class as the JDK names it (the frame's file is `Unknown Source`). */
export function lambdaClass(cls: string, run: JvmRun): string {
  const { jdk, rng } = run;
  if (jdk === 8) return `${cls}$$Lambda$${rng.int(200, 2400)}/${rng.int(100_000_000, 2_100_000_000)}`;
  if (jdk === 21) return `${cls}$$Lambda/0x000001f0${rng.hex(8)}`;
  return `${cls}$$Lambda$${rng.int(200, 2400)}/0x0000000801${rng.hex(6)}`;
}

export type SpringVersion = 5 | 6;

/** A call through a CGLIB-proxied bean (`@Transactional` service), oldest first, ending in the target method's frame. */
export function cglibCall(cls: string, method: string, line: number, spring: SpringVersion, run: JvmRun): JavaSite[] {
  const aop = 'org.springframework.aop.framework';
  const tx = 'org.springframework.transaction.interceptor';
  if (spring === 5) {
    return [
      j(`${cls}$$EnhancerBySpringCGLIB$$${run.rng.hex(8)}`, method, undefined, '<generated>'),
      j(`${aop}.CglibAopProxy$DynamicAdvisedInterceptor`, 'intercept', 708),
      j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'proceed', 763),
      j(`${aop}.ReflectiveMethodInvocation`, 'proceed', 186),
      j(`${tx}.TransactionInterceptor`, 'invoke', 119),
      j(`${tx}.TransactionAspectSupport`, 'invokeWithinTransaction', 388),
      j(`${tx}.TransactionInterceptor$1`, 'proceedWithInvocation', 123),
      j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'proceed', 763),
      j(`${aop}.ReflectiveMethodInvocation`, 'proceed', 163),
      j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'invokeJoinpoint', 792),
      j('org.springframework.cglib.proxy.MethodProxy', 'invoke', 218),
      j(`${cls}$$FastClassBySpringCGLIB$$${run.rng.hex(8)}`, 'invoke', undefined, '<generated>'),
      j(cls, method, line),
    ];
  }
  return [
    j(`${cls}$$SpringCGLIB$$0`, method, undefined, '<generated>'),
    j(`${aop}.CglibAopProxy$DynamicAdvisedInterceptor`, 'intercept', 713),
    j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'proceed', 768),
    j(`${aop}.ReflectiveMethodInvocation`, 'proceed', 184),
    j(`${tx}.TransactionInterceptor`, 'invoke', 119),
    j(`${tx}.TransactionAspectSupport`, 'invokeWithinTransaction', 392),
    j(`${tx}.TransactionInterceptor$1`, 'proceedWithInvocation', 123),
    j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'proceed', 768),
    j(`${aop}.ReflectiveMethodInvocation`, 'proceed', 173),
    j(`${aop}.CglibAopProxy$CglibMethodInvocation`, 'invokeJoinpoint', 800),
    j('org.springframework.cglib.proxy.MethodProxy', 'invoke', 216),
    j(`${cls}$$SpringCGLIB$$2`, 'invoke', undefined, '<generated>'),
    j(cls, method, line),
  ];
}

/** Tomcat and Spring MVC up to the controller method's reflective call (oldest first; the controller frame follows). */
export function springMvc(spring: SpringVersion, run: JvmRun, inflated: boolean): JavaSite[] {
  const servlet = spring === 5 ? 'javax.servlet' : 'jakarta.servlet';
  const web = 'org.springframework.web';
  const v =
    spring === 5
      ? { fs: 897, dd: 1072, ds: 963, pr: 1006, ih: 878, ir: 150, di: 205, ia: 117 }
      : { fs: 885, dd: 1089, ds: 979, pr: 1014, ih: 895, ir: 150, di: 255, ia: 118 };
  return [
    j('java.lang.Thread', 'run', { 8: 750, 11: 829, 17: 840, 21: 1583 }[run.jdk]),
    j('org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker', 'run', 659),
    j('org.apache.coyote.http11.Http11Processor', 'service', 391),
    j('org.apache.catalina.connector.CoyoteAdapter', 'service', 344),
    j('org.apache.catalina.core.StandardWrapperValve', 'invoke', 174),
    j('org.apache.catalina.core.ApplicationFilterChain', 'doFilter', 140),
    j(`${servlet}.http.HttpServlet`, 'service', spring === 5 ? 764 : 658),
    j(`${web}.servlet.FrameworkServlet`, 'service', v.fs),
    j(`${web}.servlet.FrameworkServlet`, 'processRequest', v.pr),
    j(`${web}.servlet.DispatcherServlet`, 'doService', v.ds),
    j(`${web}.servlet.DispatcherServlet`, 'doDispatch', v.dd),
    j(`${web}.servlet.mvc.method.annotation.RequestMappingHandlerAdapter`, 'invokeHandlerMethod', v.ih),
    j(`${web}.servlet.mvc.method.annotation.ServletInvocableHandlerMethod`, 'invokeAndHandle', v.ia),
    j(`${web}.method.support.InvocableHandlerMethod`, 'invokeForRequest', v.ir),
    j(`${web}.method.support.InvocableHandlerMethod`, 'doInvoke', v.di),
    ...reflection(run, inflated),
  ];
}

/** `list.stream().map(fn).collect(…)` calling a lambda of `cls` (oldest first; the lambda body's frame follows). */
export function streamMap(cls: string, run: JvmRun): JavaSite[] {
  const jdk = run.jdk;
  return [
    j('java.util.stream.ReferencePipeline', 'collect', { 8: 499, 11: 578, 17: 682, 21: 702 }[jdk]),
    j('java.util.stream.AbstractPipeline', 'evaluate', { 8: 234, 11: 234, 17: 234, 21: 234 }[jdk]),
    j('java.util.stream.ReduceOps$ReduceOp', 'evaluateSequential', { 8: 708, 11: 913, 17: 921, 21: 927 }[jdk]),
    j('java.util.stream.AbstractPipeline', 'wrapAndCopyInto', { 8: 474, 11: 474, 17: 499, 21: 509 }[jdk]),
    j('java.util.stream.AbstractPipeline', 'copyInto', { 8: 481, 11: 484, 17: 509, 21: 519 }[jdk]),
    j('java.util.ArrayList$ArrayListSpliterator', 'forEachRemaining', { 8: 1382, 11: 1655, 17: 1625, 21: 1708 }[jdk]),
    j('java.util.stream.ReferencePipeline$3$1', 'accept', { 8: 193, 11: 195, 17: 197, 21: 197 }[jdk]),
    j(lambdaClass(cls, run), 'apply', undefined, null),
  ];
}
