// The site icon, served at /favicon.ico (where browsers look for it on every page): a 16×16 ICO
// made here, so no binary file has to be kept and copied — the accent-blue square of the app's
// stylesheet crossed by a white diagonal, a fault line.

const SIZE = 16;
const ACCENT = { r: 0x2f, g: 0x5f, b: 0xd0 };

/** One 32-bit BMP image in an ICO container (ICONDIR, one ICONDIRENTRY, BITMAPINFOHEADER, pixels, AND mask). */
export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // BMP rows go bottom-up
    for (let x = 0; x < SIZE; x++) {
      const onLine = Math.abs(x + y - (SIZE - 1)) <= 1;
      const at = (row * SIZE + x) * 4;
      pixels[at] = onLine ? 0xff : ACCENT.b;
      pixels[at + 1] = onLine ? 0xff : ACCENT.g;
      pixels[at + 2] = onLine ? 0xff : ACCENT.r;
      pixels[at + 3] = 0xff;
    }
  }
  const mask = Buffer.alloc(SIZE * 4); // 1 bit per pixel, rows padded to 4 bytes; all opaque
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8); // the height counts the image and its mask
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(1, 2); // type: icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(SIZE, 6);
  dir.writeUInt8(SIZE, 7);
  dir.writeUInt16LE(1, 10);
  dir.writeUInt16LE(32, 12);
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(dir.length, 18);
  return Buffer.concat([dir, image]);
}
