#!/usr/bin/env bash
# Debian's Tesseract with the German and English data, for reading scanned pages and image files (OCR, through
# PyMuPDF): installed with apt when the tesseract binary or a language's data is missing and we run as root;
# otherwise a message says what to do (Rabbithole runs without it: scanned files are then reported, not read).
set -euo pipefail
have_language() {
    tesseract --list-langs 2>/dev/null | grep -qx "$1"
}
if command -v tesseract >/dev/null 2>&1 && have_language deu && have_language eng; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "make setup: Tesseract with German and English data is missing; scanned PDFs and images are not read without it." >&2
    echo "            Install it with: sudo apt-get install -y tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng" >&2
    exit 0
fi
for package in tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu; do
    "$(dirname "$0")/apt_install.sh" "$package"
done
tesseract --version | head -n 1
