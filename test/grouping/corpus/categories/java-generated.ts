// JVM services whose stacks go through generated classes (see ../java.ts): CGLIB proxies,
// lambdas, reflection accessors, JDK and Hibernate proxies, across JVM runs (hashes, counters,
// addresses), JDKs (8, 11, 17, 21), a Spring Boot 2 → 3 upgrade and moving lambda indexes. Two
// SDKs: Sentry's (in_app for com.acme) and a log appender (no in_app, `java.base/` prefixes).
// Hard negatives: other methods behind the same proxy or reflective path, and one gRPC stub
// failing with UNAVAILABLE vs DEADLINE_EXCEEDED (same frames, same type).
import { App, envelope, occurrences } from '../common.js';
import {
  cglibCall,
  j,
  type JavaApp,
  type JavaSite,
  javaType,
  type Jdk,
  jvmRun,
  type JvmRun,
  lambdaClass,
  reflection,
  renderJava,
  type SpringVersion,
  springMvc,
  streamMap,
} from '../java.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'java-generated';

interface Context {
  run: JvmRun;
  spring: SpringVersion;
  release: number;
  /** Reflection is inflated (GeneratedMethodAccessor) once a method has been called 15 times in the run. */
  inflated: boolean;
}

interface JavaBug {
  id: string;
  count: readonly [number, number];
  on: JavaApp;
  stack: (ctx: Context) => JavaSite[];
  error: (rng: Random, jdk: Jdk) => { type: string; value: string };
}

function javaBug(bug: JavaBug): CorpusEntry[] {
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const release = bug.on.app.pickRelease(rng);
    const run = jvmRun(bug.on, release, rng);
    const ctx: Context = { run, spring: bug.on.spring(release), release, inflated: rng.chance(0.7) };
    const frames = renderJava(bug.stack(ctx), bug.on.sdk, run.jdk);
    const error = bug.error(rng, run.jdk);
    return envelope(rng, {
      release: bug.on.app.release(release),
      platform: 'java',
      exception: { ...javaType(error.type, bug.on.sdk), value: error.value, stacktrace: frames },
      tags: { jvm: `${run.jdk}.0.${rng.int(1, 12)}` },
    });
  });
}

const orders: JavaApp = {
  app: new App('orders-service', ['2.7.0', '2.7.1', '2.8.0', '3.0.0', '3.0.2', '3.1.0']),
  sdk: 'sentry',
  jdks: (release) => (release < 3 ? [11, 17] : release < 5 ? [17] : [17, 21]),
  spring: (release) => (release < 3 ? 5 : 6),
};
const reporting: JavaApp = {
  app: new App('reporting', ['5.1.0', '5.1.1', '5.2.0', '5.3.0']),
  sdk: 'appender',
  jdks: (release) => (release < 2 ? [8, 11] : [11, 17]),
  spring: () => 5,
};
const payments: JavaApp = {
  app: new App('payments', ['9.4.0', '9.4.1', '9.5.0', '9.6.0']),
  sdk: 'sentry',
  jdks: (release) => (release < 2 ? [17] : [17, 21]),
  spring: () => 6,
};
const legacy: JavaApp = {
  app: new App('legacy-billing', ['11.2', '11.3', '11.4']),
  sdk: 'appender',
  jdks: () => [8],
  spring: () => 5,
};

/** The NullPointerException message: none before JDK 14's helpful messages (on by default since 15). */
const npe =
  (helpful: string) =>
  (_rng: Random, jdk: Jdk): { type: string; value: string } => ({ type: 'java.lang.NullPointerException', value: jdk >= 17 ? helpful : '' });

const ORDERS = 'com.acme.orders';

/** The order controller calling the transactional OrderService through its CGLIB proxy. */
const orderEndpoint = (endpoint: string, line: number, target: string, targetLine: number, tail: JavaSite[]) => (ctx: Context) => [
  ...springMvc(ctx.spring, ctx.run, ctx.inflated),
  j(`${ORDERS}.web.OrderController`, endpoint, line),
  ...cglibCall(`${ORDERS}.service.OrderService`, target, targetLine + 4 * ctx.release, ctx.spring, ctx.run),
  ...tail,
];

/** A `@Scheduled` job invoked reflectively by Spring's scheduler thread. */
const scheduledJob = (method: string, line: number, tail: JavaSite[]) => (ctx: Context) => [
  j('java.lang.Thread', 'run', { 8: 750, 11: 829, 17: 840, 21: 1583 }[ctx.run.jdk]),
  j('java.util.concurrent.ThreadPoolExecutor$Worker', 'run', { 8: 624, 11: 628, 17: 635, 21: 642 }[ctx.run.jdk]),
  j('java.util.concurrent.ThreadPoolExecutor', 'runWorker', { 8: 1149, 11: 1128, 17: 1136, 21: 1144 }[ctx.run.jdk]),
  j('java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask', 'run', { 8: 293, 11: 304, 17: 304, 21: 304 }[ctx.run.jdk]),
  j('java.util.concurrent.FutureTask', 'runAndReset', { 8: 308, 11: 305, 17: 305, 21: 358 }[ctx.run.jdk]),
  j('org.springframework.scheduling.support.DelegatingErrorHandlingRunnable', 'run', 54),
  j('org.springframework.scheduling.support.ScheduledMethodRunnable', 'run', 84),
  ...reflection(ctx.run, ctx.inflated),
  j('com.acme.reporting.jobs.ReportJob', method, line),
  ...tail,
];

/** A Kafka listener method invoked reflectively by Spring Kafka. */
const kafkaListener = (method: string, line: number, tail: (ctx: Context) => JavaSite[]) => (ctx: Context) => [
  j('java.lang.Thread', 'run', { 8: 750, 11: 829, 17: 840, 21: 1583 }[ctx.run.jdk]),
  j('org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer', 'run', 1303),
  j('org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer', 'invokeRecordListener', 2637),
  j('org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer', 'doInvokeOnMessage', 2829),
  j('org.springframework.kafka.listener.adapter.RecordMessagingMessageListenerAdapter', 'onMessage', 78),
  j('org.springframework.kafka.listener.adapter.MessagingMessageListenerAdapter', 'invokeHandler', 380),
  j('org.springframework.messaging.handler.invocation.InvocableHandlerMethod', 'invoke', 119),
  j('org.springframework.messaging.handler.invocation.InvocableHandlerMethod', 'doInvoke', 169),
  ...reflection(ctx.run, ctx.inflated),
  j('com.acme.payments.events.PaymentEventsListener', method, line),
  ...tail(ctx),
];

/** A quote: controller, the CGLIB-proxied service, a stream over the lines and its lambda (whose index moves in release 3). */
const quoteLambda = (ctx: Context): JavaSite[] => [
  ...springMvc(6, ctx.run, ctx.inflated),
  j('com.acme.payments.web.QuoteController', 'quote', 29),
  ...cglibCall('com.acme.payments.fx.QuoteService', 'quote', 58, 6, ctx.run),
  ...streamMap('com.acme.payments.fx.QuoteService', ctx.run),
  j('com.acme.payments.fx.QuoteService', `lambda$quote$${ctx.release < 3 ? 2 : 3}`, 61),
];

const GRPC_STUB = (ctx: Context): JavaSite[] => [
  ...springMvc(ctx.spring, ctx.run, ctx.inflated),
  j('com.acme.payments.web.TransferController', 'create', 48),
  j('com.acme.payments.ledger.LedgerClient', 'post', 61),
  j('com.acme.ledger.v1.LedgerServiceGrpc$LedgerServiceBlockingStub', 'postEntry', 412),
  j('io.grpc.stub.ClientCalls', 'blockingUnaryCall', 167),
  j('io.grpc.stub.ClientCalls', 'getUnchecked', 275),
  j('io.grpc.stub.ClientCalls', 'toStatusRuntimeException', 294),
];

const BUGS: JavaBug[] = [
  {
    id: 'order-place-customer-tier',
    count: [8, 15],
    on: orders,
    stack: orderEndpoint('place', 57, 'place', 88, [j(`${ORDERS}.pricing.PricingService`, 'discountFor', 41)]),
    error: npe('Cannot invoke "com.acme.orders.domain.Customer.getTier()" because "customer" is null'),
  },
  {
    // The same controller and proxy; another method and crash site.
    id: 'order-cancel-refund-payment',
    count: [3, 9],
    on: orders,
    stack: orderEndpoint('cancel', 74, 'cancel', 131, [j(`${ORDERS}.payments.RefundService`, 'refund', 29)]),
    error: npe('Cannot invoke "com.acme.orders.domain.Payment.getProvider()" because the return value of "com.acme.orders.domain.Order.getPayment()" is null'),
  },
  {
    // `orders.stream().map(o -> OrderDto.from(o))`: the lambda's index grows as lambdas are added above it.
    id: 'order-export-dto-currency',
    count: [6, 12],
    on: orders,
    stack: (ctx) => [
      ...springMvc(ctx.spring, ctx.run, ctx.inflated),
      j(`${ORDERS}.web.ExportController`, 'csv', 33),
      ...cglibCall(`${ORDERS}.service.OrderService`, 'exportAll', 150 + 4 * ctx.release, ctx.spring, ctx.run),
      ...streamMap(`${ORDERS}.service.OrderService`, ctx.run),
      j(`${ORDERS}.service.OrderService`, `lambda$exportAll$${[0, 0, 1, 1, 2, 2][ctx.release]}`, 152 + 4 * ctx.release),
      j(`${ORDERS}.web.dto.OrderDto`, 'from', 27),
      j('java.util.Currency', 'getInstance', { 8: 291, 11: 292, 17: 292, 21: 299 }[ctx.run.jdk]),
    ],
    error: (rng) => ({ type: 'java.lang.IllegalArgumentException', value: rng.chance(0.8) ? '' : 'Invalid currency code' }),
  },
  {
    // Hibernate 5/6 ByteBuddy proxy: the class suffix differs per run.
    id: 'order-dto-lazy-customer',
    count: [6, 14],
    on: orders,
    stack: (ctx) => [
      ...springMvc(ctx.spring, ctx.run, ctx.inflated),
      j(`${ORDERS}.web.OrderController`, 'get', 44),
      j(`${ORDERS}.web.dto.OrderDto`, 'from', 19),
      j(`${ORDERS}.domain.Customer$HibernateProxy$${ctx.run.rng.base62(8)}`, 'getAddress', undefined, null),
      j('org.hibernate.proxy.ProxyConfiguration$InterceptorDispatcher', 'intercept', ctx.spring === 5 ? 95 : 102),
      j('org.hibernate.proxy.pojo.bytebuddy.ByteBuddyInterceptor', 'intercept', ctx.spring === 5 ? 43 : 44),
      j('org.hibernate.proxy.AbstractLazyInitializer', 'getImplementation', ctx.spring === 5 ? 310 : 314),
      j('org.hibernate.proxy.AbstractLazyInitializer', 'initialize', ctx.spring === 5 ? 170 : 165),
    ],
    error: (rng) => ({
      type: 'org.hibernate.LazyInitializationException',
      value: `could not initialize proxy [com.acme.orders.domain.Customer#${rng.int(1000, 99999)}] - no Session`,
    }),
  },
  {
    // Another LazyInitializationException: a collection, in another code path.
    id: 'invoice-pdf-lazy-lines',
    count: [3, 8],
    on: orders,
    stack: (ctx) => [
      ...springMvc(ctx.spring, ctx.run, ctx.inflated),
      j(`${ORDERS}.web.InvoiceController`, 'pdf', 52),
      j(`${ORDERS}.invoices.InvoicePdf`, 'render', 88),
      j('org.hibernate.collection.spi.AbstractPersistentCollection', 'read', 143),
      j('org.hibernate.collection.spi.AbstractPersistentCollection', 'withTemporarySessionIfNeeded', 202),
      j('org.hibernate.collection.spi.AbstractPersistentCollection', 'throwLazyInitializationException', 635),
    ],
    error: () => ({
      type: 'org.hibernate.LazyInitializationException',
      value: 'failed to lazily initialize a collection of role: com.acme.orders.domain.Invoice.lines: could not initialize proxy - no Session',
    }),
  },
  {
    // Hibernate 3/4 with Javassist proxies on JDK 8; frames forwarded by a log appender.
    id: 'legacy-invoice-javassist-missing-row',
    count: [3, 9],
    on: legacy,
    stack: (ctx) => [
      ...springMvc(5, ctx.run, ctx.inflated),
      j('com.acme.legacy.web.StatementController', 'show', 71),
      j('com.acme.legacy.statements.StatementBuilder', 'build', 120),
      j(`com.acme.legacy.domain.Invoice_$$_jvst${ctx.run.rng.hex(3)}_${ctx.run.rng.int(0, 40)}`, 'getTotal', undefined, null),
      j('org.hibernate.proxy.pojo.javassist.JavassistLazyInitializer', 'invoke', 185),
      j('org.hibernate.proxy.AbstractLazyInitializer', 'getImplementation', 285),
      j('org.hibernate.proxy.AbstractLazyInitializer', 'initialize', 148),
      j('org.hibernate.internal.SessionImpl', 'immediateLoad', 1079),
      j('org.hibernate.internal.SessionFactoryImpl$1$1', 'handleEntityNotFound', 244),
    ],
    error: (rng) => ({
      type: 'org.hibernate.ObjectNotFoundException',
      value: `No row with the given identifier exists: [com.acme.legacy.domain.Invoice#${rng.int(10000, 99999)}]`,
    }),
  },
  {
    id: 'report-nightly-template-missing',
    count: [3, 9],
    on: reporting,
    stack: scheduledJob('nightly', 38, [j('com.acme.reporting.render.TemplateStore', 'load', 57)]),
    error: () => ({ type: 'java.lang.IllegalStateException', value: 'Report template not found: nightly-sales' }),
  },
  {
    // The same scheduler and reflective call; another job, another failure.
    id: 'report-weekly-division',
    count: [3, 7],
    on: reporting,
    stack: scheduledJob('weekly', 52, [j('com.acme.reporting.metrics.Growth', 'ratio', 19)]),
    error: () => ({ type: 'java.lang.ArithmeticException', value: '/ by zero' }),
  },
  {
    // A Spring Data repository behind a JDK dynamic proxy (`com.sun.proxy.$Proxy142` / `jdk.proxy2.$Proxy142`).
    id: 'report-user-lookup-not-unique',
    count: [3, 9],
    on: reporting,
    stack: (ctx) => [
      ...springMvc(5, ctx.run, ctx.inflated),
      j('com.acme.reporting.web.ShareController', 'share', 40),
      j('com.acme.reporting.users.UserService', 'lookup', 66),
      j(`${ctx.run.jdk === 8 ? 'com.sun.proxy' : `jdk.proxy${ctx.run.rng.int(2, 3)}`}.$Proxy${ctx.run.rng.int(120, 190)}`, 'findByEmail', undefined, null),
      j('org.springframework.aop.framework.JdkDynamicAopProxy', 'invoke', 215),
      j('org.springframework.aop.framework.ReflectiveMethodInvocation', 'proceed', 186),
      j('org.springframework.dao.support.PersistenceExceptionTranslationInterceptor', 'invoke', 152),
      j('org.springframework.dao.support.DataAccessUtils', 'translateIfNecessary', 242),
    ],
    error: (rng) => ({
      type: 'org.springframework.dao.IncorrectResultSizeDataAccessException',
      value: `query did not return a unique result: ${rng.int(2, 4)}`,
    }),
  },
  {
    // JDK 17 → 21 during the run: lambda naming and the reflective accessor change.
    id: 'payment-event-amount-format',
    count: [6, 14],
    on: payments,
    stack: kafkaListener('onMessage', 33, (ctx) => [
      j('java.util.ArrayList', 'forEach', { 8: 1259, 11: 1541, 17: 1511, 21: 1596 }[ctx.run.jdk]),
      j(lambdaClass('com.acme.payments.events.PaymentEventsListener', ctx.run), 'accept', undefined, null),
      j('com.acme.payments.events.PaymentEventsListener', `lambda$onMessage$${ctx.release < 2 ? 0 : 1}`, 35),
      j('com.acme.payments.events.AmountParser', 'parse', 22),
      j('java.math.BigDecimal', '<init>', { 8: 894, 11: 945, 17: 1108, 21: 1141 }[ctx.run.jdk]),
      j('java.math.BigDecimal', '<init>', { 8: 596, 11: 597, 17: 607, 21: 624 }[ctx.run.jdk]),
    ]),
    error: (rng) => ({
      type: 'java.lang.NumberFormatException',
      value: rng.pick([
        'Character , is neither a decimal digit number, decimal point, nor "e" notation exponential mark.',
        'Character \' is neither a decimal digit number, decimal point, nor "e" notation exponential mark.',
        "Character array is missing \"exponent\" mark 'e' or 'E'.",
      ]),
    }),
  },
  {
    id: 'payment-quote-non-terminating',
    count: [4, 10],
    on: payments,
    stack: (ctx) => [
      ...quoteLambda(ctx),
      j('com.acme.payments.fx.PriceCalculator', 'unitPrice', 17),
      j('java.math.BigDecimal', 'divide', { 8: 1690, 11: 1722, 17: 1780, 21: 1837 }[ctx.run.jdk]),
    ],
    error: () => ({ type: 'java.lang.ArithmeticException', value: 'Non-terminating decimal expansion; no exact representable decimal result.' }),
  },
  {
    // Same proxy, stream and lambda; the rounding helper fails instead.
    id: 'payment-quote-rounding-necessary',
    count: [3, 8],
    on: payments,
    stack: (ctx) => [
      ...quoteLambda(ctx),
      j('com.acme.payments.fx.PriceCalculator', 'round', 31),
      j('java.math.BigDecimal', 'setScale', { 8: 2463, 11: 2877, 17: 2958, 21: 3017 }[ctx.run.jdk]),
      j('java.math.BigDecimal', 'commonNeedIncrement', { 8: 4181, 11: 4628, 17: 4736, 21: 4913 }[ctx.run.jdk]),
    ],
    error: () => ({ type: 'java.lang.ArithmeticException', value: 'Rounding necessary' }),
  },
  {
    id: 'ledger-unavailable',
    count: [6, 12],
    on: payments,
    stack: GRPC_STUB,
    error: (rng) => ({
      type: 'io.grpc.StatusRuntimeException',
      value: rng.pick([
        'UNAVAILABLE: io exception',
        'UNAVAILABLE: Connection refused',
        'UNAVAILABLE: upstream connect error or disconnect/reset before headers. reset reason: connection failure',
      ]),
    }),
  },
  {
    // The same stub call, frames and type; a slow ledger is another problem than a down one.
    id: 'ledger-deadline-exceeded',
    count: [4, 10],
    on: payments,
    stack: GRPC_STUB,
    error: (rng) => ({
      type: 'io.grpc.StatusRuntimeException',
      value: `DEADLINE_EXCEEDED: deadline exceeded after ${rng.int(4, 4)}.${rng.digits(9)}s. [closed=[], open=[[buffered_nanos=${rng.int(100_000, 900_000)}, remote_addr=ledger/10.8.${rng.int(0, 3)}.${rng.int(2, 250)}:9090]]]`,
    }),
  },
];

export const javaGenerated: Category = {
  name: CATEGORY,
  description:
    'JVM stacks through CGLIB/Hibernate/Javassist/JDK proxies, lambdas (`$$Lambda$1581/0x…`, `lambda$fetchAll$0`), reflection by JDK (8/11/17/21), a Spring 5 → 6 upgrade, `java.base/` prefixes',
  build: (): CorpusEntry[] => BUGS.flatMap(javaBug),
};
