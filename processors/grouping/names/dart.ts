// Dart frames, version 3: sentry-dart marks an `await` with an `<asynchronous suspension>` frame
// whose presence depends on the Dart version and how the future was awaited, and the SDK's own
// `dart:` libraries (the event loop, timers, isolates) change with the Dart version.

const SUSPENSION = '<asynchronous suspension>';

/** A frame that says nothing about the app's code: an async gap or the Dart SDK's own library. */
export function isDartRuntimeFrame(file: string | undefined): boolean {
  if (file === undefined) return false;
  return file === SUSPENSION || file.startsWith('dart:');
}
