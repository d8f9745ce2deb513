import Link from "next/link";

export default function NotFound() {
  return (
    <div className="page centered">
      <h1>Not found</h1>
      <p>That room does not exist, or it was deleted.</p>
      <Link href="/" className="button button--primary">
        All rooms
      </Link>
    </div>
  );
}
